package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
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

// krewPlugin is the part of krew's Plugin manifest the test reads.
type krewPlugin struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Version                                 string `json:"version"`
		Homepage, ShortDescription, Description string
		Platforms                               []struct {
			Selector struct {
				MatchLabels map[string]string `json:"matchLabels"`
			} `json:"selector"`
			URI    string `json:"uri"`
			SHA256 string `json:"sha256"`
			Bin    string `json:"bin"`
			Files  []struct{ From, To string }
		} `json:"platforms"`
	} `json:"spec"`
}

// TestKrewManifest: the release's krew manifest parses, names the version, has one platform per
// build whose uri names an archive of the release, and each sha256 is its archive's; each archive
// holds the build as an executable kubectl-precedent.
func TestKrewManifest(t *testing.T) {
	for _, version := range []string{"v1.2.3", "v0.0.0-test"} {
		t.Run(version, func(t *testing.T) {
			o, bins := releaseOptions(t, version)
			if _, err := o.run(); err != nil {
				t.Fatal(err)
			}
			raw, err := os.ReadFile(filepath.Join(o.out, "precedent.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			var m krewPlugin
			if err := yaml.UnmarshalStrict(raw, &m); err != nil {
				t.Fatalf("precedent.yaml: %v\n%s", err, raw)
			}
			got := []string{m.APIVersion, m.Kind, m.Metadata.Name, m.Spec.Version}
			want := []string{"krew.googlecontainertools.github.com/v1alpha2", "Plugin", "precedent", version}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("apiVersion, kind, name, version (-want +got):\n%s", diff)
			}
			checkPlatforms(t, o, m, bins)
		})
	}
}

// releaseOptions are the options of a release of version into a temporary folder, with a fake
// binary per krew platform (returned by OS/ARCH).
func releaseOptions(t *testing.T, version string) (options, map[string]string) {
	t.Helper()
	dir := t.TempDir()
	install := filepath.Join(dir, "kustomize.yaml")
	if err := os.WriteFile(install, []byte("        image: ghcr.io/precedent-dev/precedent:v0.1.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := options{version: version, out: filepath.Join(dir, "release"), install: install, chart: "../../charts/precedent",
		imageRepo: "ghcr.io/precedent-dev/precedent", license: "../../LICENSE", url: "https://example.com/dl/" + version}
	bins := map[string]string{}
	for _, p := range []string{"linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64"} {
		path := filepath.Join(dir, strings.ReplaceAll(p, "/", "-"))
		bins[p] = "a build for " + p
		if err := os.WriteFile(path, []byte(bins[p]), 0o755); err != nil {
			t.Fatal(err)
		}
		b, err := parsePluginBuild(p + "=" + path)
		if err != nil {
			t.Fatal(err)
		}
		o.plugins = append(o.plugins, b)
	}
	return o, bins
}

// checkPlatforms checks each platform of the manifest against its archive in the release folder.
func checkPlatforms(t *testing.T, o options, m krewPlugin, bins map[string]string) {
	t.Helper()
	seen := map[string]string{}
	for _, p := range m.Spec.Platforms {
		platform := p.Selector.MatchLabels["os"] + "/" + p.Selector.MatchLabels["arch"]
		file := strings.TrimPrefix(p.URI, o.url+"/")
		wantFile := "kubectl-precedent_" + o.version + "_" + strings.ReplaceAll(platform, "/", "_") + ".tar.gz"
		if file != wantFile || p.Bin != "kubectl-precedent" {
			t.Errorf("%s: uri %s, bin %s; want %s/%s, bin kubectl-precedent", platform, p.URI, p.Bin, o.url, wantFile)
		}
		archive, err := os.ReadFile(filepath.Join(o.out, file))
		if err != nil {
			t.Fatal(err)
		}
		if sum := sha256.Sum256(archive); hex.EncodeToString(sum[:]) != p.SHA256 {
			t.Errorf("%s: sha256 %s, the archive's is %x", platform, p.SHA256, sum)
		}
		seen[platform] = archivedPlugin(t, archive)
	}
	if diff := cmp.Diff(bins, seen); diff != "" {
		t.Errorf("the archived kubectl-precedent per platform (-want +got):\n%s", diff)
	}
}

// archivedPlugin is the body of the executable kubectl-precedent in a plugin archive, which also
// holds the LICENSE.
func archivedPlugin(t *testing.T, archive []byte) string {
	t.Helper()
	gz, err := gzip.NewReader(bytes.NewReader(archive))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	files := map[string]string{}
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		files[fmt.Sprintf("%s %o", hdr.Name, hdr.Mode)] = string(body)
	}
	if !strings.Contains(files["LICENSE 644"], "Apache License") {
		t.Errorf("the archive has no LICENSE: %v", files)
	}
	return files["kubectl-precedent 755"]
}
