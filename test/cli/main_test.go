// Package cli_test drives the precedent binary against a real kube-apiserver and etcd: one control
// plane for the package (started in TestMain, with the Gateway API, Precedent and same-shape Kuadrant
// CRDs) and no manager: the cluster commands read the cluster with the caller's credentials.
package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/precedent-dev/precedent/test/harness"
)

var (
	h *harness.Harness
	c client.Client
	// bin is the precedent binary built for the package.
	bin string
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "precedent-cli-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if bin, err = harness.BuildPrecedent(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if h, err = harness.Start(harness.Options{CRDDirs: []string{filepath.Join("..", "crds", "kuadrant")}}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	c, _ = h.Client()
	return h.Run(m)
}
