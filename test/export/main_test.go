// Package export_test applies the output of `precedent export vap` and `precedent export map` to a
// real kube-apiserver and etcd with no webhook registered, for configurations managing Precedent's,
// Kuadrant's, Kuma's and Envoy Gateway's kinds (its real CRDs): the API server must accept the
// policies, and they alone must reject invalid objects, admit valid ones and default what the
// mutating webhook defaults. One control plane for the package; each test works in its own namespace.
package export_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/precedent-dev/precedent/test/egcrds"
	"github.com/precedent-dev/precedent/test/harness"
)

var (
	h   *harness.Harness
	c   client.Client
	bin string // the precedent binary, built once
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "precedent-export-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if bin, err = harness.BuildPrecedent(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	eg, err := egcrds.CRDDir() // Envoy Gateway's real CRDs, from the module cache
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if h, err = harness.Start(harness.Options{CRDDirs: []string{filepath.Join("..", "crds", "kuadrant"), filepath.Join("..", "crds", "kuma"), eg}}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	c, _ = h.Client()
	return h.Run(m)
}
