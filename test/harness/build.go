package harness

import (
	"fmt"
	"os/exec"
	"path/filepath"
)

// BuildPrecedent builds the precedent binary into dir and returns its path, for the suites that run
// the CLI as a user would (against the suite's API server through a kubeconfig, or offline).
func BuildPrecedent(dir string) (string, error) {
	bin := filepath.Join(dir, "precedent")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/precedent-dev/precedent/cmd/precedent").CombinedOutput(); err != nil {
		return "", fmt.Errorf("building precedent: %v\n%s", err, out)
	}
	return bin, nil
}
