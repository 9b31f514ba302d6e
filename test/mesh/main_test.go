// Package mesh_test drives the MeshTimeout and MeshTrafficPermission admission path through a real
// kube-apiserver and etcd (the pinned binaries of `make control-plane`): one control plane for the
// package, started in TestMain with the shipped CRDs (Dataplane included), the webhooks served over
// TLS with a dev certificate; each test works in its own namespace and its own mesh, named after it.
package mesh_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/precedent-dev/precedent/test/harness"
)

// h is the package's control plane, with the webhooks registered.
var h *harness.Harness

// probe is rejected by the validating webhook only (the AccessPolicy schema allows a Service
// target; the mesh CRDs' schemas catch everything the webhook would): once a dry-run of it is denied,
// the API server calls the webhook that also serves the mesh kinds.
const probe = `
apiVersion: policy.precedent.dev/v1alpha1
kind: AccessPolicy
metadata: {name: probe, namespace: default}
spec:
  targetRefs: [{group: "", kind: Service, name: probe}]
  rules: [{name: r, source: {type: ServiceAccount, serviceAccount: {name: a}}}]`

func TestMain(m *testing.M) {
	var err error
	if h, err = harness.Start(harness.Options{Webhooks: true, Probe: probe}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(h.Run(m))
}
