package mesh_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/precedent-dev/precedent/test/harness"
)

// dataplanes is the mesh {{ns}}: one proxy of service web (version v1) with an outbound to backend.
const dataplanes = `
apiVersion: kuma.io/v1alpha1
kind: Dataplane
mesh: "{{ns}}"
metadata: {name: web-1, namespace: "{{ns}}"}
spec:
  networking:
    address: 10.0.0.1
    inbound: [{port: 8080, tags: {kuma.io/service: web, version: v1}}]
    outbound: [{port: 8081, tags: {kuma.io/service: backend}}]`

// policy is a mesh policy of kind named name in {{ns}} and in mesh {{ns}}, with spec (YAML, indented
// two spaces).
func policy(kind, name, spec string) string {
	return fmt.Sprintf("apiVersion: policy.precedent.dev/v1alpha1\nkind: %s\nmetadata: {name: %s, namespace: \"{{ns}}\", labels: {kuma.io/mesh: \"{{ns}}\"}}\nspec:\n%s", kind, name, spec)
}

const webTimeouts = "  targetRef: {kind: Service, name: web}\n  to: [{targetRef: {kind: Mesh}, connectTimeout: 5s}]\n"

func TestWriteShadowsAnotherPolicysElement(t *testing.T) {
	c, rec := h.NewClient()
	ns := harness.Namespace(t, c)
	harness.Apply(t, c, ns, dataplanes)
	harness.Apply(t, c, ns, policy("MeshTimeout", "base", ""+
		"  targetRef: {kind: Mesh}\n"+
		"  to:\n"+
		"  - {targetRef: {kind: Mesh}, connectTimeout: 10s}\n"+
		"  - {targetRef: {kind: Service, name: backend}, http: {requestTimeout: 5s}}\n"))
	harness.WarningsOf(t, c, rec, harness.ObjectIn(ns, policy("MeshTimeout", "web-timeouts", webTimeouts)), []string{
		fmt.Sprintf("PRC-W014 MeshTimeout %s/base: spec.to[0] never takes effect on any Dataplane: every field it sets is decided by spec.to[0] of %s/web-timeouts", ns, ns),
	})
}

func TestWriteWithItsOwnElementShadowed(t *testing.T) {
	c, rec := h.NewClient()
	ns := harness.Namespace(t, c)
	harness.Apply(t, c, ns, dataplanes)
	harness.WarningsOf(t, c, rec, harness.ObjectIn(ns, policy("MeshTimeout", "p", ""+
		"  targetRef: {kind: Mesh}\n"+
		"  to:\n"+
		"  - {targetRef: {kind: Mesh}, connectTimeout: 1s, http: {requestTimeout: 1s}}\n"+
		"  - {targetRef: {kind: Service, name: backend}, connectTimeout: 2s}\n")), []string{
		fmt.Sprintf("PRC-W014 MeshTimeout %s/p: spec.to[1] never takes effect on any Dataplane: every field it sets is decided by spec.to[0] of %s/p", ns, ns),
	})
}

func TestWriteOfAPolicyThatNeverTakesEffect(t *testing.T) {
	c, rec := h.NewClient()
	ns := harness.Namespace(t, c)
	harness.Apply(t, c, ns, dataplanes)
	harness.Apply(t, c, ns, policy("MeshTimeout", "web-timeouts", webTimeouts))
	harness.WarningsOf(t, c, rec, harness.ObjectIn(ns, policy("MeshTimeout", "00-low", "  targetRef: {kind: Mesh}\n  to: [{targetRef: {kind: Mesh}, connectTimeout: 1s}]\n")), []string{
		fmt.Sprintf("PRC-W014 MeshTimeout %s/00-low never takes effect on any Dataplane: every field it sets is decided by %s/web-timeouts", ns, ns),
	})
}

func TestPermissionShadowed(t *testing.T) {
	c, rec := h.NewClient()
	ns := harness.Namespace(t, c)
	harness.Apply(t, c, ns, dataplanes)
	harness.Apply(t, c, ns, policy("MeshTrafficPermission", "allow-all", "  targetRef: {kind: Mesh}\n  from: [{targetRef: {kind: Mesh}, action: ALLOW}]\n"))
	harness.WarningsOf(t, c, rec, harness.ObjectIn(ns, policy("MeshTrafficPermission", "web", "  targetRef: {kind: Service, name: web}\n  from: [{targetRef: {kind: Mesh}, action: DENY}]\n")), []string{
		fmt.Sprintf("PRC-W014 MeshTrafficPermission %s/allow-all never takes effect on any Dataplane: every field it sets is decided by %s/web", ns, ns),
	})
}

// TestKindsAndMeshesApart: a MeshTrafficPermission does not shadow a MeshTimeout, and a policy of
// another mesh (label kuma.io/mesh) is analysed against that mesh's Dataplanes only: here none.
func TestKindsAndMeshesApart(t *testing.T) {
	c, rec := h.NewClient()
	ns := harness.Namespace(t, c)
	harness.Apply(t, c, ns, dataplanes)
	shadowing := policy("MeshTimeout", "p", ""+
		"  targetRef: {kind: Mesh}\n"+
		"  to:\n"+
		"  - {targetRef: {kind: Mesh}, connectTimeout: 1s}\n"+
		"  - {targetRef: {kind: Mesh}, connectTimeout: 2s}\n")
	harness.DryRunWarnings(t, c, rec, harness.ObjectIn(ns, shadowing), []string{
		fmt.Sprintf("PRC-W014 MeshTimeout %s/p: spec.to[1] never takes effect on any Dataplane: every field it sets is decided by spec.to[0] of %s/p", ns, ns),
	})
	harness.WarningsOf(t, c, rec, harness.ObjectIn(ns, strings.Replace(shadowing, `kuma.io/mesh: "{{ns}}"`, "kuma.io/mesh: other", 1)), nil)
	harness.WarningsOf(t, c, rec, harness.ObjectIn(ns, policy("MeshTrafficPermission", "p", "  targetRef: {kind: Mesh}\n  from: [{targetRef: {kind: Mesh}, action: ALLOW}]\n")), nil)
}

// TestWarningLimit: the mesh warnings obey warningLimit like the others.
func TestWarningLimit(t *testing.T) {
	c, rec := h.NewClient()
	ns := harness.Namespace(t, c)
	t.Cleanup(func() { h.SetConfig(t, c, map[string]interface{}{}) })
	h.SetConfig(t, c, map[string]interface{}{"warningLimit": int64(2)})
	harness.Apply(t, c, ns, dataplanes)
	harness.WarningsOf(t, c, rec, harness.ObjectIn(ns, policy("MeshTimeout", "p", ""+
		"  targetRef: {kind: Mesh}\n"+
		"  to:\n"+
		"  - {targetRef: {kind: Mesh}, connectTimeout: 1s}\n"+
		"  - {targetRef: {kind: Mesh}, connectTimeout: 2s}\n"+
		"  - {targetRef: {kind: Mesh}, connectTimeout: 3s}\n"+
		"  - {targetRef: {kind: Mesh}, connectTimeout: 4s}\n")), []string{
		fmt.Sprintf("PRC-W014 MeshTimeout %s/p: spec.to[1] never takes effect on any Dataplane: every field it sets is decided by spec.to[0] of %s/p", ns, ns),
		"PRC-W040 and 2 more warnings",
	})
}
