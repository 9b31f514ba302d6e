package access_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/precedent-dev/precedent/test/harness"
)

// TestAccessReadsTheCluster: `precedent access` without -f decides from the cluster's objects (with
// kubectl's connection flags), as it does from the same objects in files, denial exit status
// included.
func TestAccessReadsTheCluster(t *testing.T) {
	c, _ := h.NewClient()
	bin, err := harness.BuildPrecedent(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ns := harness.Namespace(t, c)
	files, err := filepath.Glob("../../config/samples/access/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := harness.ApplySamples(t, c, ns, "prod", files...)
	for _, tc := range []struct {
		name, source, tool string
		wantCode           int
	}{
		{name: "allowed", source: "serviceaccount:" + ns + "/payment-agent", tool: "get_payment"},
		{name: "denied at the gateway", source: "serviceaccount:" + ns + "/payments-admin", tool: "refund_payment", wantCode: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"access", "--gateway", ns + "/prod-gateway", "--backend", ns + "/payment-service",
				"--source", tc.source, "--tool", tc.tool, "--external-auth", ns + "/gateway-policy-audit=allow"}
			offline, offCode := harness.RunPrecedent(t, bin, append(args, "-f", dir)...)
			cluster, code := harness.RunPrecedent(t, bin, append(args, "--kubeconfig", h.Kubeconfig, "--request-timeout", "20s")...)
			if code != tc.wantCode {
				t.Errorf("exit status %d, want %d", code, tc.wantCode)
			}
			if diff := cmp.Diff(offline, cluster); diff != "" || code != offCode {
				t.Errorf("from the cluster (exit %d) vs the files (exit %d) (-files +cluster):\n%s", code, offCode, diff)
			}
			if !strings.Contains(cluster, `"decision"`) {
				t.Errorf("no decision printed:\n%s", cluster)
			}
		})
	}
}
