// Package parity_test checks that `precedent validate -f` answers what the webhook answers: every
// sample under config/samples is written to a real kube-apiserver with Precedent's webhooks, then
// each policy is taken out and its create sent as a server-side dry-run, and the same create is
// reviewed offline by the precedent binary over the same objects. The two answers must be equal
// whole: the same errors and the same warnings, in the same order.
package parity_test

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
	h *harness.Harness
	c client.Client
	// rec records the warnings of c's writes.
	rec *harness.Recorder
	// bin is the precedent binary built for the package.
	bin string
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "precedent-parity-")
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
	h, err = harness.Start(harness.Options{CRDDirs: []string{filepath.Join("..", "crds", "kuadrant"), filepath.Join("..", "crds", "nginx-gateway-fabric"), filepath.Join("..", "crds", "kgateway"), eg}, Webhooks: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	c, rec = h.NewClient()
	return h.Run(m)
}
