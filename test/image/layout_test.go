package image

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// labels are the OCI labels every image and the index carry.
var labels = map[string]string{
	"org.opencontainers.image.created":  created.Format("2006-01-02T15:04:05Z"),
	"org.opencontainers.image.source":   "https://github.com/precedent-dev/precedent",
	"org.opencontainers.image.version":  version,
	"org.opencontainers.image.revision": commit,
	"org.opencontainers.image.title":    "precedent",
	"org.opencontainers.image.licenses": "Apache-2.0",
}

// readLayout returns the layout's one index, as `oci:DIR:TAG` tools see it, and its ref.name.
func readLayout(t *testing.T, dir string) (v1.ImageIndex, string) {
	t.Helper()
	top, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := top.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Manifests) != 1 || m.Manifests[0].MediaType != types.OCIImageIndex {
		t.Fatalf("index.json: want one OCI image index, got %+v", m.Manifests)
	}
	idx, err := top.ImageIndex(m.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	return idx, m.Manifests[0].Annotations["org.opencontainers.image.ref.name"]
}

// platformImages returns the index's images by "os/arch", checking the index's shape on the way.
func platformImages(t *testing.T, idx v1.ImageIndex) map[string]v1.Image {
	t.Helper()
	m, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if m.MediaType != types.OCIImageIndex {
		t.Errorf("index media type %s, want %s", m.MediaType, types.OCIImageIndex)
	}
	if diff := cmp.Diff(labels, m.Annotations); diff != "" {
		t.Errorf("index annotations (-want +got):\n%s", diff)
	}
	imgs := map[string]v1.Image{}
	for _, d := range m.Manifests {
		if d.MediaType != types.OCIManifestSchema1 || d.Platform == nil {
			t.Fatalf("index entry %s: media type %s, platform %v", d.Digest, d.MediaType, d.Platform)
		}
		img, err := idx.Image(d.Digest)
		if err != nil {
			t.Fatal(err)
		}
		imgs[d.Platform.OS+"/"+d.Platform.Architecture] = img
	}
	if len(imgs) != len(platforms) {
		t.Fatalf("index has platforms %v, want %v", keys(imgs), platforms)
	}
	return imgs
}

// checkConfig asserts the whole runtime configuration of one platform's image.
func checkConfig(t *testing.T, platform string, img v1.Image) {
	t.Helper()
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	got := struct {
		Platform string
		Created  string
		Config   v1.Config
	}{cf.OS + "/" + cf.Architecture, cf.Created.UTC().String(), cf.Config}
	want := got
	want.Platform, want.Created = platform, created.String()
	want.Config = v1.Config{User: "65532:65532", WorkingDir: "/", Entrypoint: []string{"/precedent"}, Cmd: []string{"serve"}, Labels: labels}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s config (-want +got):\n%s", platform, diff)
	}
	mt, err := img.MediaType()
	if err != nil {
		t.Fatal(err)
	}
	m, err := img.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	if mt != types.OCIManifestSchema1 || m.Config.MediaType != types.OCIConfigJSON {
		t.Errorf("%s: manifest %s with config %s, want OCI media types", platform, mt, m.Config.MediaType)
	}
	for _, l := range m.Layers {
		if l.MediaType != types.OCILayer {
			t.Errorf("%s: layer %s has media type %s, want %s", platform, l.Digest, l.MediaType, types.OCILayer)
		}
	}
}

func TestLayout(t *testing.T) {
	idx, ref := readLayout(t, layoutDir)
	if ref != version {
		t.Errorf("ref.name %q, want %q", ref, version)
	}
	imgs := platformImages(t, idx)
	for _, p := range platforms {
		checkConfig(t, p, imgs[p])
	}
	// The base layer (passwd, group, home, /tmp) is one blob shared by both platforms; the binaries differ.
	amd, arm := layerDigests(t, imgs["linux/amd64"]), layerDigests(t, imgs["linux/arm64"])
	if len(amd) != 2 || len(arm) != 2 || amd[0] != arm[0] || amd[1] == arm[1] {
		t.Errorf("layers: amd64 %v, arm64 %v; want two each, the first shared", amd, arm)
	}
}

// The same binaries, version and commit time give the same digests: the image is reproducible.
func TestReproducible(t *testing.T) {
	again := filepath.Join(work, "layout-again")
	if _, err := runBuilder(append(buildArgs, "--out", again)...); err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(again)
	first, _ := readLayout(t, layoutDir)
	second, _ := readLayout(t, again)
	d1, err := first.Digest()
	if err != nil {
		t.Fatal(err)
	}
	d2, err := second.Digest()
	if err != nil {
		t.Fatal(err)
	}
	if d1 != d2 {
		t.Errorf("a rebuild gave index %s, the first build %s", d2, d1)
	}
}

func layerDigests(t *testing.T, img v1.Image) []v1.Hash {
	t.Helper()
	ls, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	var ds []v1.Hash
	for _, l := range ls {
		d, err := l.Digest()
		if err != nil {
			t.Fatal(err)
		}
		ds = append(ds, d)
	}
	return ds
}

func keys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}
