package cli_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/precedent-dev/precedent/test/harness"
)

// TestKubectlConventions: against the cluster, the CLI takes its arguments as kubectl does: a
// TYPE/NAME argument is the target in the namespace of -n, --policy NAME is in the namespace of -n,
// and each gives what the fully qualified flags give.
func TestKubectlConventions(t *testing.T) {
	kc := "--kubeconfig=" + h.Kubeconfig
	ns := harness.Namespace(t, c)
	harness.Apply(t, c, ns, orderTopology, viewsGatewayPolicy, viewsRoutePolicy(false))
	for _, tc := range []struct {
		name       string
		long, kube []string
	}{
		{"TYPE/NAME with -n is --target TYPE/NAMESPACE/NAME",
			[]string{"effective", "--kind", "AuthPolicy", "--target", "httproute/" + ns + "/cart"},
			[]string{"effective", "--kind", "AuthPolicy", "-n", ns, "httproute/cart"}},
		{"--policy NAME with -n is --policy NAMESPACE/NAME",
			[]string{"explain", "--kind", "AuthPolicy", "--policy", ns + "/route-policy"},
			[]string{"explain", "--kind", "AuthPolicy", "-n", ns, "--policy", "route-policy"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, stderr, code := precedent(t, append(tc.long, kc)...)
			if code != 0 || !strings.Contains(want, ns+"/") {
				t.Fatalf("precedent %v: exit %d\n%s%s", tc.long, code, want, stderr)
			}
			got, stderr, code := precedent(t, append(tc.kube, kc)...)
			if code != 0 {
				t.Fatalf("precedent %v: exit %d\n%s", tc.kube, code, stderr)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("precedent %v differs from %v (-want +got):\n%s", tc.kube, tc.long, diff)
			}
		})
	}
}
