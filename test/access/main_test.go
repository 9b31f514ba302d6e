// Package access_test drives the AccessPolicy (and XAccessPolicy) admission path through a real
// kube-apiserver and etcd (the pinned binaries of `make control-plane`): one control plane for the
// package, started in TestMain with the shipped CRDs, the test XAccessPolicy CRD of testdata/ and
// the XBackend CRD of test/crds/xbackend (which `make run` installs too), the webhooks served over
// TLS with a dev certificate; each test works in its own namespace.
package access_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/precedent-dev/precedent/test/harness"
)

// h is the package's control plane, with the webhooks registered.
var h *harness.Harness

// probe is rejected by the webhook only (the schema allows a Service target): once a dry-run of it
// is denied, the API server calls the webhooks.
const probe = `
apiVersion: policy.precedent.dev/v1alpha1
kind: AccessPolicy
metadata: {name: probe, namespace: default}
spec:
  targetRefs: [{group: "", kind: Service, name: probe}]
  rules: [{name: r, source: {type: ServiceAccount, serviceAccount: {name: a}}}]`

func TestMain(m *testing.M) {
	var err error
	if h, err = harness.Start(harness.Options{Webhooks: true, Probe: probe, CRDDirs: []string{"testdata", "../crds/xbackend"}}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(h.Run(m))
}
