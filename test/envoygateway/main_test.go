// Package envoygateway_test checks the envoy-gateway profile's artifacts on a real kube-apiserver
// and etcd with Envoy Gateway's real CRDs (v1.9.1, read from the module cache through
// test/egcrds): one control plane for the package, started in TestMain, with Precedent's webhooks
// and reconciler as serve runs them.
package envoygateway_test

import (
	"fmt"
	"os"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/precedent-dev/precedent/test/egcrds"
	"github.com/precedent-dev/precedent/test/harness"
)

var (
	c client.Client
	h *harness.Harness
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := egcrds.CRDDir()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	h, err = harness.Start(harness.Options{CRDDirs: []string{dir}, Webhooks: true, Reconciler: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	c, _ = h.Client()
	return h.Run(m)
}
