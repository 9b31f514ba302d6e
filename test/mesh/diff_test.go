package mesh_test

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/precedent-dev/precedent/test/harness"
)

// TestDiffAgainstCluster: `precedent diff -f` compares the mesh kinds from the cluster too (base:
// the MeshTimeouts and Dataplanes the API server stores; head: with the file applied), per proxy
// and outbound, like the offline diff.
func TestDiffAgainstCluster(t *testing.T) {
	bin, err := harness.BuildPrecedent(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c, _ := h.NewClient()
	ns := harness.Namespace(t, c)
	harness.Apply(t, c, ns, dataplanes)
	harness.Apply(t, c, ns, policy("MeshTimeout", "base", "  targetRef: {kind: Mesh}\n  to: [{targetRef: {kind: Mesh}, connectTimeout: 10s}]\n"))
	file := filepath.Join(t.TempDir(), "change.yaml")
	doc := strings.ReplaceAll(policy("MeshTimeout", "base", "  targetRef: {kind: Mesh}\n  to: [{targetRef: {kind: Mesh}, connectTimeout: 3s}]\n"), "{{ns}}", ns)
	if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "diff", "-f", file, "--kind", "MeshTimeout", "-o", "json", "--kubeconfig", h.Kubeconfig, "-n", ns).Output()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("precedent diff -f: %v (want exit 1: changes)\n%s", err, out)
	}
	var got struct {
		Changes []map[string]interface{} `json:"changes"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want := []map[string]interface{}{{
		"kind": "MeshTimeout", "group": "policy.precedent.dev", "proxy": ns + "/web-1", "outbound": "backend", "field": "connectTimeout", "change": "changed",
		"before": map[string]interface{}{"value": "10s", "from": "base"},
		"after":  map[string]interface{}{"value": "3s", "from": "base"},
	}}
	if diff := cmp.Diff(want, got.Changes); diff != "" {
		t.Errorf("changes (-want +got):\n%s\n%s", diff, out)
	}
}
