// Package leadership_test takes the status reconciler's Lease away from a running replica on a real
// kube-apiserver and etcd: the replica must stop only its status controllers, keep answering
// admissions from informers that follow the cluster, and start its controllers again once it
// holds the lease anew, with no restart. One control plane for the package (TestMain); leases are
// short so a test waits seconds, not tens of seconds.
package leadership_test

import (
	"fmt"
	"os"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/precedent-dev/precedent/test/harness"
)

var (
	h *harness.Harness
	c client.Client
)

// Lease timings of the suite: the replica gives up a lease it cannot renew within renewDeadline
// and may take one nobody renewed for leaseDuration.
const (
	leaseDuration = 3 * time.Second
	renewDeadline = 2 * time.Second
	retryPeriod   = 500 * time.Millisecond
)

func TestMain(m *testing.M) {
	var err error
	h, err = harness.Start(harness.Options{Webhooks: true, Reconciler: true,
		LeaseDuration: leaseDuration, RenewDeadline: renewDeadline, RetryPeriod: retryPeriod})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	c, _ = h.Client()
	os.Exit(h.Run(m))
}
