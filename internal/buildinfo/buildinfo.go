package buildinfo

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Set at build time by the Makefile:
//
//	-ldflags "-X github.com/precedent-dev/precedent/buildinfo.version=$(git describe --tags --always --dirty)
//	          -X github.com/precedent-dev/precedent/buildinfo.commit=$(git rev-parse HEAD)"
var (
	version string
	commit  string
)

// Defaults when neither -ldflags nor the module's VCS stamp say anything.
const (
	DevVersion    = "v0.0.0-dev"
	UnknownCommit = "unknown"
)

// Info identifies a build. The JSON form is part of the CLI contract (`precedent version -o json`).
type Info struct {
	Version  string `json:"version"`
	Commit   string `json:"commit"`
	Go       string `json:"go"`
	Platform string `json:"platform"`
}

// String is the text form of the CLI contract: `precedent <version> (commit <sha>, <go version>, <os/arch>)`.
func (i Info) String() string {
	return fmt.Sprintf("precedent %s (commit %s, %s, %s)", i.Version, i.Commit, i.Go, i.Platform)
}

// Get returns this binary's build identity.
func Get() Info {
	bi, _ := debug.ReadBuildInfo()
	return resolve(version, commit, bi)
}

// resolve prefers the values stamped by -ldflags, then the module's build information (the main
// module's version and the vcs.revision setting that `go build` records in a git checkout), then
// the defaults.
func resolve(version, commit string, bi *debug.BuildInfo) Info {
	if bi != nil {
		if version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && commit == "" {
				commit = s.Value
			}
		}
	}
	if version == "" {
		version = DevVersion
	}
	if commit == "" {
		commit = UnknownCommit
	}
	return Info{Version: version, Commit: commit, Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
}
