package image

import (
	"io"
	"log"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// `make image-push` against go-containerregistry's in-process registry on 127.0.0.1: what is pulled
// back is, digest for digest, what the layout holds, for the index and each platform.
func TestPushPull(t *testing.T) {
	reg := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	defer reg.Close()
	host := strings.TrimPrefix(reg.URL, "http://")
	tag := host + "/precedent-dev/precedent:" + version

	out, err := runBuilder("push", "--layout", layoutDir, "--image", tag, "--insecure")
	if err != nil {
		t.Fatal(err)
	}
	local, _ := readLayout(t, layoutDir)
	wantIndex, err := local.Digest()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.TrimSpace(out), "pushed "+host+"/precedent-dev/precedent@"+wantIndex.String(); got != want {
		t.Errorf("push printed %q, want %q", got, want)
	}

	ref, err := name.ParseReference(tag)
	if err != nil {
		t.Fatal(err)
	}
	pulled, err := remote.Index(ref)
	if err != nil {
		t.Fatalf("pulling the index: %v", err)
	}
	gotIndex, err := pulled.Digest()
	if err != nil {
		t.Fatal(err)
	}
	if gotIndex != wantIndex {
		t.Errorf("pulled index %s, pushed %s", gotIndex, wantIndex)
	}
	localImgs := platformImages(t, local)
	for p, img := range platformImages(t, pulled) {
		checkConfig(t, p, img)
		// What a node of that platform pulls by tag is the layout's image for it, layers and all.
		goos, arch, _ := strings.Cut(p, "/")
		byPlatform, err := remote.Image(ref, remote.WithPlatform(v1.Platform{OS: goos, Architecture: arch}))
		if err != nil {
			t.Fatalf("pulling %s: %v", p, err)
		}
		want, got := digests(t, localImgs[p]), digests(t, byPlatform)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s pulled by platform (-layout +registry):\n%s", p, diff)
		}
	}
}

// digests are an image's manifest, config and layer digests, the layers as the registry recomputes
// them from the pulled bytes.
func digests(t *testing.T, img v1.Image) []string {
	t.Helper()
	d, err := img.Digest()
	if err != nil {
		t.Fatal(err)
	}
	c, err := img.ConfigName()
	if err != nil {
		t.Fatal(err)
	}
	ds := []string{"manifest " + d.String(), "config " + c.String()}
	ls, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range ls {
		rc, err := l.Compressed()
		if err != nil {
			t.Fatal(err)
		}
		h, _, err := v1.SHA256(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		ds = append(ds, "layer "+h.String())
	}
	return ds
}
