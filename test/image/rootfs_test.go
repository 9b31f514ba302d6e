package image

import (
	"archive/tar"
	"debug/elf"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
)

// file is one entry of a flattened root filesystem.
type file struct {
	Type     string // "dir" or "file"
	Mode     os.FileMode
	UID, GID int
	Content  string // of /etc files only
}

var wantPasswd = "root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n"

// The flattened root filesystem of each platform holds exactly the static binary, the user and
// group databases naming uid/gid 65532, the user's home and /tmp.
func TestRootFS(t *testing.T) {
	idx, _ := readLayout(t, layoutDir)
	imgs := platformImages(t, idx)
	for _, p := range platforms {
		t.Run(p, func(t *testing.T) {
			dir := t.TempDir()
			got := unpack(t, imgs[p], dir)
			want := map[string]file{
				"etc":          {Type: "dir", Mode: 0o755},
				"etc/group":    {Type: "file", Mode: 0o644, Content: "root:x:0:\nnonroot:x:65532:\n"},
				"etc/passwd":   {Type: "file", Mode: 0o644, Content: wantPasswd},
				"home":         {Type: "dir", Mode: 0o755},
				"home/nonroot": {Type: "dir", Mode: 0o700, UID: 65532, GID: 65532},
				"precedent":    {Type: "file", Mode: 0o755},
				"tmp":          {Type: "dir", Mode: 0o777 | os.ModeSticky},
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("root filesystem (-want +got):\n%s", diff)
			}
			checkStatic(t, filepath.Join(dir, "precedent"), p)
		})
	}
}

// `precedent version` run from the linux/amd64 image's root filesystem prints the contract's line
// and JSON with the version and commit the binary was built with.
func TestVersionFromImage(t *testing.T) {
	const platform = "linux/amd64"
	if runtime.GOOS+"/"+runtime.GOARCH != platform {
		t.Fatalf("this test runs the %s binary and needs a %s machine, not %s/%s", platform, platform, runtime.GOOS, runtime.GOARCH)
	}
	idx, _ := readLayout(t, layoutDir)
	dir := t.TempDir()
	unpack(t, platformImages(t, idx)[platform], dir)
	bin := filepath.Join(dir, "precedent")

	text := run(t, dir, bin, "version")
	if want := fmt.Sprintf("precedent %s (commit %s, %s, %s)\n", version, commit, goVersion, platform); text != want {
		t.Errorf("precedent version printed %q, want %q", text, want)
	}
	var got map[string]string
	if err := json.Unmarshal([]byte(run(t, dir, bin, "version", "-o", "json")), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"version": version, "commit": commit, "go": goVersion, "platform": platform}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("precedent version -o json (-want +got):\n%s", diff)
	}
}

// unpack writes img's flattened root filesystem into dir and returns its entries.
func unpack(t *testing.T, img v1.Image, dir string) map[string]file {
	t.Helper()
	rc := mutate.Extract(img)
	defer rc.Close()
	files := map[string]file{}
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Clean(h.Name), "/")
		if !filepath.IsLocal(name) {
			t.Fatalf("layer entry %q leaves the root filesystem", h.Name)
		}
		f := file{Mode: h.FileInfo().Mode() &^ os.ModeDir, UID: h.Uid, GID: h.Gid}
		path := filepath.Join(dir, name)
		switch h.Typeflag {
		case tar.TypeDir:
			f.Type = "dir"
			if err := os.MkdirAll(path, 0o755); err != nil {
				t.Fatal(err)
			}
		case tar.TypeReg:
			f.Type = "file"
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasPrefix(name, "etc/") {
				f.Content = string(b)
			}
			if err := os.WriteFile(path, b, f.Mode.Perm()); err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatalf("layer entry %q has type %q; the image holds only folders and regular files", h.Name, h.Typeflag)
		}
		files[name] = f
	}
	return files
}

// checkStatic asserts that path is an ELF executable for platform with no interpreter and no
// shared libraries: it runs on an empty base.
func checkStatic(t *testing.T, path, platform string) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	machine := map[string]elf.Machine{"linux/amd64": elf.EM_X86_64, "linux/arm64": elf.EM_AARCH64}[platform]
	if f.Machine != machine {
		t.Errorf("%s is built for %s, want %s", path, f.Machine, machine)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Errorf("%s has a %s program header: it is not static", path, p.Type)
		}
	}
	libs, err := f.ImportedLibraries()
	if err != nil {
		t.Fatal(err)
	}
	if len(libs) != 0 {
		t.Errorf("%s needs shared libraries %v", path, libs)
	}
}

// run runs bin in dir and returns its standard output.
func run(t *testing.T, dir, bin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = []string{} // as in the image: no environment beyond what the runtime sets
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}
