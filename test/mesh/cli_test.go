package mesh_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/precedent-dev/precedent/test/harness"
)

// TestMeshReadsTheCluster: `precedent mesh` without -f merges the cluster's policies and
// Dataplanes (with kubectl's connection flags) as it merges the same objects in files.
func TestMeshReadsTheCluster(t *testing.T) {
	c, _ := h.NewClient()
	bin, err := harness.BuildPrecedent(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ns := harness.Namespace(t, c)
	var files []string
	for _, name := range []string{"dataplanes.yaml", "meshtimeouts.yaml", "meshtrafficpermissions.yaml"} {
		files = append(files, filepath.Join("../../config/samples/mesh", name))
	}
	dir := harness.ApplySamples(t, c, ns, "mesh-1", files...)
	for _, args := range [][]string{
		{"mesh", "--kind", "MeshTimeout", "--proxy", ns + "/web-v1", "--outbound", "backend"},
		{"mesh", "--kind", "MeshTrafficPermission", "--proxy", ns + "/backend-1", "--from", "web,version=v1"},
	} {
		t.Run(strings.Join(args[1:], " "), func(t *testing.T) {
			offline, offCode := harness.RunPrecedent(t, bin, append(args, "-f", dir)...)
			cluster, code := harness.RunPrecedent(t, bin, append(args, "--kubeconfig", h.Kubeconfig, "--request-timeout", "20s")...)
			if code != 0 || offCode != 0 {
				t.Fatalf("exit status %d from the cluster, %d from the files", code, offCode)
			}
			if diff := cmp.Diff(offline, cluster); diff != "" {
				t.Errorf("from the cluster vs the files (-files +cluster):\n%s", diff)
			}
			if !strings.Contains(cluster, `"origins"`) {
				t.Errorf("no merged configuration printed:\n%s", cluster)
			}
		})
	}
}
