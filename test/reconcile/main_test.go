// Package reconcile_test drives the status reconciler through a real kube-apiserver and etcd: one
// control plane for the package (started in TestMain), the manager running the same state the
// webhook reads and the status controllers; each test works in its own namespace.
package reconcile_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/precedent-dev/precedent/test/harness"
)

var (
	// h is the package's control plane, with the manager running the webhooks' state and the status
	// reconciler.
	h *harness.Harness
	c client.Client
)

func TestMain(m *testing.M) {
	var err error
	// Kuadrant's own kinds (same-shape test CRDs) are installed for the coexistence tests.
	if h, err = harness.Start(harness.Options{Reconciler: true, CRDDirs: []string{filepath.Join("..", "crds", "kuadrant")}}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	c, _ = h.Client()
	code := h.Run(m)
	if plugin.dir != "" {
		_ = os.RemoveAll(plugin.dir)
	}
	os.Exit(code)
}
