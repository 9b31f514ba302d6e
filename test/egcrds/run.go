package egcrds

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
)

// RunCRDDirs are the CRD folders (and files) `make run` installs, as `make run-crd-dirs` prints the Makefile's
// RUN_CRD_DIRS (every model's CRDs, Envoy Gateway's and kgateway's from the module cache): the
// tests that start precedent dev as `make run` does read them here, so the three cannot drift apart.
// Folders of the repository are relative to its root.
func RunCRDDirs() ([]string, error) {
	cmd := exec.Command("make", "-s", "--no-print-directory", "run-crd-dirs")
	cmd.Dir = repoRoot()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("make run-crd-dirs: %w: %s", err, strings.TrimSpace(errb.String()))
	}
	dirs := strings.Fields(out.String())
	if len(dirs) == 0 {
		return nil, fmt.Errorf("make run-crd-dirs printed no folder")
	}
	return dirs, nil
}
