package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"sigs.k8s.io/yaml"
)

// pluginName is the krew plugin's name (`kubectl krew install precedent`, then
// `kubectl precedent …`), and pluginBin the executable kubectl finds on PATH.
const (
	pluginName = "precedent"
	pluginBin  = "kubectl-precedent"
)

// pluginBuild is one platform's build of the binary: --plugin OS/ARCH=PATH.
type pluginBuild struct {
	os, arch, path string
}

func parsePluginBuild(s string) (pluginBuild, error) {
	platform, path, ok := strings.Cut(s, "=")
	goos, arch, ok2 := strings.Cut(platform, "/")
	if !ok || !ok2 || goos == "" || arch == "" || path == "" {
		return pluginBuild{}, fmt.Errorf("--plugin %q: want OS/ARCH=PATH", s)
	}
	return pluginBuild{os: goos, arch: arch, path: path}, nil
}

// pluginArchive is one platform's archive and its place in the manifest.
type pluginArchive struct {
	build pluginBuild
	file  string
	body  []byte
}

// pluginArchives packs each build as kubectl-precedent_<version>_<os>_<arch>.tar.gz holding the
// binary named kubectl-precedent and the LICENSE, sorted by os then arch.
func pluginArchives(builds []pluginBuild, version, license string, created time.Time) ([]pluginArchive, error) {
	lic, err := os.ReadFile(license)
	if err != nil {
		return nil, err
	}
	sort.Slice(builds, func(i, j int) bool {
		return builds[i].os+"/"+builds[i].arch < builds[j].os+"/"+builds[j].arch
	})
	var out []pluginArchive
	for _, b := range builds {
		bin, err := os.ReadFile(b.path)
		if err != nil {
			return nil, err
		}
		tgz, err := tarGz([]tarEntry{{name: pluginBin, mode: 0o755, body: bin}, {name: "LICENSE", mode: 0o644, body: lic}}, created)
		if err != nil {
			return nil, err
		}
		file := fmt.Sprintf("%s_%s_%s_%s.tar.gz", pluginBin, version, b.os, b.arch)
		out = append(out, pluginArchive{build: b, file: file, body: tgz})
	}
	return out, nil
}

// krewManifest is krew's Plugin manifest (krew.googlecontainertools.github.com/v1alpha2) for the
// archives, each downloaded from url/<file> and checked against its sha256.
func krewManifest(archives []pluginArchive, version, url string) ([]byte, error) {
	var platforms []any
	for _, a := range archives {
		sum := sha256.Sum256(a.body)
		platforms = append(platforms, map[string]any{
			"selector": map[string]any{"matchLabels": map[string]string{"os": a.build.os, "arch": a.build.arch}},
			"uri":      strings.TrimSuffix(url, "/") + "/" + a.file,
			"sha256":   hex.EncodeToString(sum[:]),
			"files":    []map[string]string{{"from": pluginBin, "to": "."}, {"from": "LICENSE", "to": "."}},
			"bin":      pluginBin,
		})
	}
	return yaml.Marshal(map[string]any{
		"apiVersion": "krew.googlecontainertools.github.com/v1alpha2",
		"kind":       "Plugin",
		"metadata":   map[string]any{"name": pluginName},
		"spec": map[string]any{
			"version":          version,
			"homepage":         "https://github.com/precedent-dev/precedent",
			"shortDescription": "Show and check Gateway API inherited policies",
			"description": "Shows the effective Gateway API inherited policy (defaults and overrides) on every\n" +
				"Gateway and Route path and the policy each rule comes from, explains a policy's status,\n" +
				"diffs change sets and validates manifests offline with Precedent's admission checks.\n",
			"platforms": platforms,
		},
	})
}
