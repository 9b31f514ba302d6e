// Package image tests what `make image` and `make image-push` produce: it builds precedent for
// linux/amd64 and linux/arm64 once (static, as the Makefile does), runs the image builder
// (hack/image) over them, and checks the OCI layout, a push to and pull from an in-process
// registry on loopback, and the unpacked root filesystem, whose /precedent it runs.
package image

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// root is the repository root (this package is test/image).
var root = filepath.Join("..", "..")

// What the binaries and the image are built with.
const (
	version = "v9.8.7-imagetest"
	commit  = "0123456789abcdef0123456789abcdef01234567"
)

var (
	created   = time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	platforms = []string{"linux/amd64", "linux/arm64"}
)

// Set by TestMain.
var (
	work      string   // temporary folder of this run
	builder   string   // the built hack/image program
	layoutDir string   // the OCI layout written by builder
	goVersion string   // the toolchain that built the binaries
	buildArgs []string // the builder's arguments but --out
)

func TestMain(m *testing.M) {
	code, err := setup(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "setup:", err)
		code = 1
	}
	if work != "" {
		_ = os.RemoveAll(work)
	}
	os.Exit(code)
}

func setup(m *testing.M) (int, error) {
	var err error
	if work, err = os.MkdirTemp("", "precedent-image-test-"); err != nil {
		return 0, err
	}
	out, err := goCmd(nil, "env", "GOVERSION")
	if err != nil {
		return 0, err
	}
	goVersion = strings.TrimSpace(out)
	builder = filepath.Join(work, "image-builder")
	if _, err := goCmd(nil, "build", "-o", builder, "./hack/image"); err != nil {
		return 0, err
	}
	ldflags := fmt.Sprintf("-s -w -X github.com/precedent-dev/precedent/internal/buildinfo.version=%s -X github.com/precedent-dev/precedent/internal/buildinfo.commit=%s", version, commit)
	buildArgs = []string{"build", "--version", version, "--revision", commit, "--created", fmt.Sprint(created.Unix()), "--licenses", "Apache-2.0"}
	for _, p := range platforms {
		goos, goarch, _ := strings.Cut(p, "/")
		bin := filepath.Join(work, goos+"-"+goarch, "precedent")
		env := []string{"CGO_ENABLED=0", "GOOS=" + goos, "GOARCH=" + goarch}
		if _, err := goCmd(env, "build", "-trimpath", "-ldflags", ldflags, "-o", bin, "./cmd/precedent"); err != nil {
			return 0, err
		}
		buildArgs = append(buildArgs, "--binary", p+"="+bin)
	}
	layoutDir = filepath.Join(work, "layout")
	if _, err := runBuilder(append(buildArgs, "--out", layoutDir)...); err != nil {
		return 0, err
	}
	return m.Run(), nil
}

// goCmd runs the go command in the repository root.
func goCmd(env []string, args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s go %s: %w\n%s", strings.Join(env, " "), strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// runBuilder runs hack/image with args.
func runBuilder(args ...string) (string, error) {
	out, err := exec.Command(builder, args...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("image %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}
