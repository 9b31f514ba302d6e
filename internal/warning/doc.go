// Package warning words and bounds the warnings of an admission response alike for every profile:
// the cap on how many lines one response carries (the settings' warningLimit), with a closing line
// that counts the rest, and the lines every profile says the same way (a target that does not
// exist). It sits below validate, access, mesh and webhook, and does no I/O.
package warning
