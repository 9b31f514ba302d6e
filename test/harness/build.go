package harness

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// BuildTags are the Makefile's GO_TAGS, the build tags `make build` builds the binary with.
const BuildTags = "kustomize_disable_go_plugin_support"

// BuildPrecedent builds the precedent binary into dir, as `make build` does, and returns its path,
// for the suites that run the CLI as a user would (against the suite's API server through a
// kubeconfig, or offline).
func BuildPrecedent(dir string) (string, error) {
	bin := filepath.Join(dir, "precedent")
	if out, err := exec.Command("go", "build", "-tags", BuildTags, "-o", bin, "github.com/precedent-dev/precedent/cmd/precedent").CombinedOutput(); err != nil {
		return "", fmt.Errorf("building precedent: %v\n%s", err, out)
	}
	return bin, nil
}

// RunPrecedent runs the binary bin with args and returns its stdout and exit status; its stderr
// goes to the test log. Failing to start it fails the test.
func RunPrecedent(t testing.TB, bin string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	code := 0
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	if errb.Len() > 0 {
		t.Logf("precedent %s: stderr:\n%s", strings.Join(args, " "), errb.String())
	}
	return out.String(), code
}
