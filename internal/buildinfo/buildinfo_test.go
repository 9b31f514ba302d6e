package buildinfo

import (
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestResolve(t *testing.T) {
	platform := runtime.GOOS + "/" + runtime.GOARCH
	vcs := &debug.BuildInfo{
		Main:     debug.Module{Path: "github.com/precedent-dev/precedent", Version: "v0.3.1-0.20260101000000-abcdef012345+dirty"},
		Settings: []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "abcdef0123456789"}, {Key: "vcs.modified", Value: "true"}},
	}
	devel := &debug.BuildInfo{Main: debug.Module{Path: "github.com/precedent-dev/precedent", Version: "(devel)"}}
	tests := []struct {
		name            string
		version, commit string
		bi              *debug.BuildInfo
		want            Info
	}{
		{"ldflags win over the vcs stamp", "v1.2.3", "0123abcd", vcs, Info{"v1.2.3", "0123abcd", runtime.Version(), platform}},
		{"vcs stamp when ldflags are unset", "", "", vcs, Info{"v0.3.1-0.20260101000000-abcdef012345+dirty", "abcdef0123456789", runtime.Version(), platform}},
		{"ldflags version with vcs commit", "v1.2.3", "", vcs, Info{"v1.2.3", "abcdef0123456789", runtime.Version(), platform}},
		{"devel module without vcs gives the defaults", "", "", devel, Info{DevVersion, UnknownCommit, runtime.Version(), platform}},
		{"no build information gives the defaults", "", "", nil, Info{DevVersion, UnknownCommit, runtime.Version(), platform}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, resolve(tt.version, tt.commit, tt.bi)); diff != "" {
				t.Errorf("resolve (-want +got):\n%s", diff)
			}
		})
	}
}

func TestString(t *testing.T) {
	i := Info{Version: "v1.2.3", Commit: "0123abcd", Go: "go1.26.8", Platform: "linux/arm64"}
	if got, want := i.String(), "precedent v1.2.3 (commit 0123abcd, go1.26.8, linux/arm64)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}
