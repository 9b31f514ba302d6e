// Package webhook_test drives Precedent's admission webhooks through a real kube-apiserver and etcd
// (the pinned binaries of `make control-plane`): one control plane for the package, started in
// TestMain, the webhooks served over TLS with a dev certificate and registered in the API server;
// each test works in its own namespace.
package webhook_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/precedent-dev/precedent/test/harness"
)

// h is the package's control plane, with the webhooks registered.
var h *harness.Harness

func TestMain(m *testing.M) {
	var err error
	if h, err = harness.Start(harness.Options{Webhooks: true}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(h.Run(m))
}
