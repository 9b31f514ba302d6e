// Package buildinfo says what this binary is: its version, the commit it was built from, the Go
// toolchain and the platform. The Makefile stamps version and commit with -ldflags -X; without them
// the module's VCS stamp is used. `precedent version` prints it, `precedent serve` logs it at start
// and exports it as the precedent_build_info metric.
package buildinfo
