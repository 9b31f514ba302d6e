// Package printable makes untrusted strings (rule keys, object names, messages built from them) safe
// to print in admission warnings, status messages and CLI output: control characters, bidirectional
// overrides and invalid UTF-8 are escaped, so what a reader sees is what the object holds.
package printable
