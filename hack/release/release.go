package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"sigs.k8s.io/yaml"
)

type options struct {
	version, out, install, installBuiltin, chart, imageRepo, url, license string
	plugins                                                               []pluginBuild
	created                                                               time.Time
}

// semver is a release version, vX.Y.Z, or a pre-release vX.Y.Z-SUFFIX (a test build of the release).
var semver = regexp.MustCompile(`^v(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)$`)

// run writes the release files and returns their paths.
func (o options) run() ([]string, error) {
	m := semver.FindStringSubmatch(o.version)
	if m == nil {
		return nil, fmt.Errorf("--version %q: want vX.Y.Z (or vX.Y.Z-PRERELEASE)", o.version)
	}
	if o.out == "" || o.install == "" {
		return nil, fmt.Errorf("--out and --install are required")
	}
	if o.url == "" {
		o.url = "https://github.com/precedent-dev/precedent/releases/download/" + o.version
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return nil, err
	}
	tgz, meta, err := packageChart(o.chart, m[1], o.created)
	if err != nil {
		return nil, err
	}
	name := fmt.Sprintf("%s-%s.tgz", meta["name"], m[1])
	index, err := indexFile(meta, name, o.url, tgz, o.created)
	if err != nil {
		return nil, err
	}
	files := []outFile{{name, tgz}, {"index.yaml", index}}
	for _, in := range []struct{ from, to string }{{o.install, "install.yaml"}, {o.installBuiltin, "install-builtin-certs.yaml"}} {
		if in.from == "" {
			continue
		}
		body, err := o.installFile(in.from)
		if err != nil {
			return nil, err
		}
		files = append(files, outFile{in.to, body})
	}
	plugin, err := o.pluginFiles()
	if err != nil {
		return nil, err
	}
	return writeFiles(o.out, append(files, plugin...))
}

// installFile is a rendered kustomization made an install file of the release: the image of the
// version, and no PrecedentConfig that sets nothing, so one `kubectl apply -f` installs it.
func (o options) installFile(rendered string) ([]byte, error) {
	raw, err := os.ReadFile(rendered)
	if err != nil {
		return nil, err
	}
	body, err := setImage(raw, o.imageRepo, o.version)
	if err == nil {
		body, err = dropDefaultSettings(body)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", rendered, err)
	}
	return body, nil
}

// outFile is one release file.
type outFile struct {
	name string
	body []byte
}

// pluginFiles are the kubectl plugin's archives, one per --plugin build, and krew's manifest
// precedent.yaml naming them; none without --plugin.
func (o options) pluginFiles() ([]outFile, error) {
	if len(o.plugins) == 0 {
		return nil, nil
	}
	archives, err := pluginArchives(o.plugins, o.version, o.license, o.created)
	if err != nil {
		return nil, err
	}
	manifest, err := krewManifest(archives, o.version, o.url)
	if err != nil {
		return nil, err
	}
	var files []outFile
	for _, a := range archives {
		files = append(files, outFile{a.file, a.body})
	}
	return append(files, outFile{pluginName + ".yaml", manifest}), nil
}

// writeFiles writes files into dir and returns their paths.
func writeFiles(dir string, files []outFile) ([]string, error) {
	var paths []string
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		if err := os.WriteFile(p, f.body, 0o644); err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

var (
	versionLine    = regexp.MustCompile(`(?m)^version: .*$`)
	appVersionLine = regexp.MustCompile(`(?m)^appVersion: .*$`)
)

// packageChart archives the chart folder as `helm package` lays it out (every file under
// <name>/), with Chart.yaml's version and appVersion set to version, deterministically (sorted,
// one modification time, root-owned). It returns the archive and the packaged Chart.yaml.
func packageChart(dir, version string, created time.Time) ([]byte, map[string]any, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "Chart.yaml"))
	if err != nil {
		return nil, nil, err
	}
	if !versionLine.Match(raw) || !appVersionLine.Match(raw) {
		return nil, nil, fmt.Errorf("%s/Chart.yaml has no version or appVersion line", dir)
	}
	raw = versionLine.ReplaceAll(raw, []byte("version: "+version))
	raw = appVersionLine.ReplaceAll(raw, []byte(fmt.Sprintf("appVersion: %q", version)))
	meta := map[string]any{}
	if err := yaml.Unmarshal(raw, &meta); err != nil {
		return nil, nil, fmt.Errorf("%s/Chart.yaml: %w", dir, err)
	}
	name, _ := meta["name"].(string)
	if name == "" {
		return nil, nil, fmt.Errorf("%s/Chart.yaml has no name", dir)
	}
	var files []string
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	sort.Strings(files)
	var entries []tarEntry
	for _, p := range files {
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return nil, nil, err
		}
		body := raw
		if rel != "Chart.yaml" {
			if body, err = os.ReadFile(p); err != nil {
				return nil, nil, err
			}
		}
		entries = append(entries, tarEntry{name: name + "/" + filepath.ToSlash(rel), mode: 0o644, body: body})
	}
	tgz, err := tarGz(entries, created)
	return tgz, meta, err
}

// tarEntry is one regular file of an archive.
type tarEntry struct {
	name string
	mode int64
	body []byte
}

// tarGz archives entries, in the order given, as a gzipped tar, deterministically: one modification
// time, root-owned, PAX headers.
func tarGz(entries []tarEntry, created time.Time) ([]byte, error) {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	gz.ModTime = created
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		hdr := &tar.Header{Name: e.name, Mode: e.mode, Size: int64(len(e.body)), ModTime: created, Typeflag: tar.TypeReg, Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, err
		}
		if _, err := tw.Write(e.body); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// indexFile is the chart repository index.yaml listing the packaged chart, as `helm repo index`
// writes it: the Chart.yaml fields, the archive's URL and sha256 digest, the creation time.
func indexFile(meta map[string]any, file, url string, tgz []byte, created time.Time) ([]byte, error) {
	sum := sha256.Sum256(tgz)
	entry := map[string]any{}
	for k, v := range meta {
		entry[k] = v
	}
	entry["urls"] = []string{strings.TrimSuffix(url, "/") + "/" + file}
	entry["digest"] = hex.EncodeToString(sum[:])
	entry["created"] = created.Format(time.RFC3339)
	return yaml.Marshal(map[string]any{
		"apiVersion": "v1",
		"entries":    map[string]any{meta["name"].(string): []any{entry}},
		"generated":  created.Format(time.RFC3339),
	})
}

// setImage sets the tag of every `image: <repo>:<tag>` line of a rendered manifest to version; it
// is an error if there is none.
func setImage(rendered []byte, repo, version string) ([]byte, error) {
	re := regexp.MustCompile(`(?m)^([ \t]*(?:- )?image: )` + regexp.QuoteMeta(repo) + `(?::[^\s@]+)?(@sha256:[0-9a-f]+)?[ \t]*$`)
	if !re.Match(rendered) {
		return nil, fmt.Errorf("no image %s", repo)
	}
	return re.ReplaceAll(rendered, []byte("${1}"+repo+":"+version)), nil
}
