// Package kuma_test drives Kuma's own kinds (kuma.io MeshTimeout and MeshTrafficPermission, same-shape
// test CRDs in test/crds/kuma) managed with the mesh profile through a real kube-apiserver and etcd:
// the webhooks and the status reconciler run in one manager; each test works in its own namespace.
package kuma_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/precedent-dev/precedent/test/harness"
)

var h *harness.Harness

func TestMain(m *testing.M) {
	var err error
	if h, err = harness.Start(harness.Options{Webhooks: true, Reconciler: true, CRDDirs: []string{filepath.Join("..", "crds", "kuma")}}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(h.Run(m))
}
