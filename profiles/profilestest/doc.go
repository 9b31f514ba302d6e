// Package profilestest sets up a test binary as a program sets itself up: with the profiles' models
// and checks installed (profiles.Install) before any settings are read.
package profilestest
