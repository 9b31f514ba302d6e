package main

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// buildOptions say what goes into the image and how it is labelled.
type buildOptions struct {
	// binaries maps a platform ("linux/amd64") to the static precedent binary built for it.
	binaries map[string]string
	version  string
	revision string
	created  time.Time // the commit time, so a rebuild of one commit gives the same digests
	source   string
	licenses string // SPDX expression; no label when empty
}

// Labels are the OCI annotation keys (https://github.com/opencontainers/image-spec/blob/main/annotations.md).
const (
	labelCreated  = "org.opencontainers.image.created"
	labelSource   = "org.opencontainers.image.source"
	labelVersion  = "org.opencontainers.image.version"
	labelRevision = "org.opencontainers.image.revision"
	labelTitle    = "org.opencontainers.image.title"
	labelLicenses = "org.opencontainers.image.licenses"
	labelRefName  = "org.opencontainers.image.ref.name"
)

func (o buildOptions) labels() map[string]string {
	l := map[string]string{
		labelCreated:  o.created.UTC().Format(time.RFC3339),
		labelSource:   o.source,
		labelVersion:  o.version,
		labelRevision: o.revision,
		labelTitle:    "precedent",
	}
	if o.licenses != "" {
		l[labelLicenses] = o.licenses
	}
	return l
}

// buildIndex assembles one image per platform on an empty base (a shared layer with /etc/passwd,
// /etc/group, the user's home and /tmp; a layer with /precedent) and an OCI index over them.
func buildIndex(o buildOptions) (v1.ImageIndex, error) {
	if len(o.binaries) == 0 {
		return nil, fmt.Errorf("no binaries: give --binary OS/ARCH=PATH at least once")
	}
	base, err := baseLayer(o.created)
	if err != nil {
		return nil, fmt.Errorf("building the base layer: %w", err)
	}
	created := v1.Time{Time: o.created.UTC()}
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, platform := range slices.Sorted(maps.Keys(o.binaries)) {
		osName, arch, ok := strings.Cut(platform, "/")
		if !ok || osName == "" || arch == "" {
			return nil, fmt.Errorf("platform %q: want OS/ARCH, e.g. linux/amd64", platform)
		}
		bin, err := binaryLayer(o.binaries[platform], o.created)
		if err != nil {
			return nil, fmt.Errorf("building the layer for %s: %w", platform, err)
		}
		img := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
		img, err = mutate.ConfigFile(img, &v1.ConfigFile{
			Architecture: arch,
			OS:           osName,
			Created:      created,
			RootFS:       v1.RootFS{Type: "layers"},
			Config: v1.Config{
				User:       fmt.Sprintf("%d:%d", uid, gid),
				WorkingDir: "/",
				Entrypoint: []string{"/precedent"},
				Cmd:        []string{"serve"},
				Labels:     o.labels(),
			},
		})
		if err != nil {
			return nil, err
		}
		img, err = mutate.Append(img,
			mutate.Addendum{Layer: base, MediaType: types.OCILayer, History: v1.History{Created: created, CreatedBy: "precedent image: /etc/passwd, /etc/group, /home/nonroot, /tmp"}},
			mutate.Addendum{Layer: bin, MediaType: types.OCILayer, History: v1.History{Created: created, CreatedBy: "precedent image: /precedent " + o.version}},
		)
		if err != nil {
			return nil, err
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{
			Add:        img,
			Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: osName, Architecture: arch}},
		})
	}
	return mutate.Annotations(idx, o.labels()).(v1.ImageIndex), nil
}

// writeLayout replaces dir with an OCI image layout whose index.json points at idx, named tag
// (org.opencontainers.image.ref.name), so `oci:DIR:TAG` finds it. It writes beside dir and renames,
// so dir is either the old layout or the complete new one.
func writeLayout(dir string, idx v1.ImageIndex, tag string) error {
	tmp := dir + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	p, err := layout.Write(tmp, empty.Index)
	if err != nil {
		return fmt.Errorf("writing the layout: %w", err)
	}
	if err := p.AppendIndex(idx, layout.WithAnnotations(map[string]string{labelRefName: tag})); err != nil {
		return fmt.Errorf("writing the layout: %w", err)
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	return os.Rename(tmp, dir)
}

// readLayout returns the one index that writeLayout put into dir.
func readLayout(dir string) (v1.ImageIndex, error) {
	top, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		return nil, fmt.Errorf("reading the layout %s: %w (run make image first)", dir, err)
	}
	m, err := top.IndexManifest()
	if err != nil {
		return nil, fmt.Errorf("reading the layout %s: %w", dir, err)
	}
	if len(m.Manifests) != 1 || !m.Manifests[0].MediaType.IsIndex() {
		return nil, fmt.Errorf("layout %s: want one image index in index.json, found %d descriptors", dir, len(m.Manifests))
	}
	return top.ImageIndex(m.Manifests[0].Digest)
}
