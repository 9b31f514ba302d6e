package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestSetImage(t *testing.T) {
	const repo = "ghcr.io/precedent-dev/precedent"
	for _, tc := range []struct {
		name, in, want string
		err            bool
	}{
		{"a tag", "      - image: ghcr.io/precedent-dev/precedent:v0.0.9\n", "      - image: ghcr.io/precedent-dev/precedent:v1.2.3\n", false},
		{"no tag", "        image: ghcr.io/precedent-dev/precedent\n", "        image: ghcr.io/precedent-dev/precedent:v1.2.3\n", false},
		{"a digest", "        image: ghcr.io/precedent-dev/precedent:v0.1.0@sha256:0123abcd\n", "        image: ghcr.io/precedent-dev/precedent:v1.2.3\n", false},
		{"another image left alone", "        image: ghcr.io/other/precedent:v0.1.0\n", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := setImage([]byte(tc.in), repo, "v1.2.3")
			if (err != nil) != tc.err {
				t.Fatalf("error %v, want an error: %t", err, tc.err)
			}
			if !tc.err && string(got) != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestRunRejectsBadVersions(t *testing.T) {
	for _, v := range []string{"", "1.2.3", "v1.2", "v1.2.3-rc.1x y"} {
		_, err := options{version: v, out: t.TempDir(), install: "x"}.run()
		if err == nil || !strings.Contains(err.Error(), "want vX.Y.Z") {
			t.Errorf("--version %q: error %v, want one asking for vX.Y.Z", v, err)
		}
	}
}

// TestDefaultsNameTheReleaseVersion: the Makefile's RELEASE_VERSION (what `make release` builds) is
// the tag config/default deploys and the chart's appVersion, so a clone installs the image that
// release publishes.
func TestDefaultsNameTheReleaseVersion(t *testing.T) {
	read := func(p string) string {
		raw, err := os.ReadFile(filepath.Join("..", "..", p))
		if err != nil {
			t.Fatal(err)
		}
		return string(raw)
	}
	find := func(p, re string) string {
		m := regexp.MustCompile(re).FindStringSubmatch(read(p))
		if m == nil {
			t.Fatalf("%s: no match for %s", p, re)
		}
		return m[1]
	}
	release := find("Makefile", `(?m)^RELEASE_VERSION := (v\S+)$`)
	if got := find("config/manager/kustomization.yaml", `(?m)^\s*newTag: (\S+)$`); got != release {
		t.Errorf("config/manager deploys the tag %s, the release builds %s", got, release)
	}
	if got := find("charts/precedent/Chart.yaml", `(?m)^appVersion: "?([^"\s]+)"?$`); "v"+got != release {
		t.Errorf("the chart's appVersion %s gives the tag v%s, the release builds %s", got, got, release)
	}
	if got := find("charts/precedent/Chart.yaml", `(?m)^version: (\S+)$`); "v"+got != release {
		t.Errorf("the chart's version %s, the release builds %s", got, release)
	}
}
