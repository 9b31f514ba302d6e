package mesh_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/precedent-dev/precedent/internal/diff"
	"github.com/precedent-dev/precedent/internal/manifest"
	meshprofile "github.com/precedent-dev/precedent/profiles/mesh"
	mesh "github.com/precedent-dev/precedent/profiles/mesh/engine"
)

const dataplaneYAML = `
apiVersion: kuma.io/v1alpha1
kind: Dataplane
metadata: {name: web-1, namespace: mesh-1}
spec:
  networking:
    inbound: [{tags: {kuma.io/service: web}}]
    outbound: [{tags: {kuma.io/service: backend}}]
`

// meshTimeout is a Mesh-wide MeshTimeout named name whose to element (every outbound) sets conf.
func meshTimeout(name, conf string) string {
	return "---\napiVersion: policy.precedent.dev/v1alpha1\nkind: MeshTimeout\nmetadata: {name: " + name + ", namespace: mesh-1}\n" +
		"spec:\n  targetRef: {kind: Mesh}\n  to:\n  - targetRef: {kind: Mesh}\n    " + conf + "\n"
}

func meshTree(t *testing.T, docs string) meshprofile.MeshTree {
	t.Helper()
	objs, err := manifest.Decode("mesh.yaml", []byte(docs))
	if err != nil {
		t.Fatal(err)
	}
	var out meshprofile.MeshTree
	for _, o := range objs {
		if o.GetKind() == mesh.KindDataplane {
			dp, err := mesh.ParseDataplane(o.Unstructured)
			if err != nil {
				t.Fatal(err)
			}
			out.Dataplanes = append(out.Dataplanes, dp)
			continue
		}
		p, errs := mesh.Parse(o.Unstructured)
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		out.Policies = append(out.Policies, p)
	}
	return out
}

// TestMeshChangeTypes: merged fields added, removed, changed and moved, per proxy and outbound.
func TestMeshChangeTypes(t *testing.T) {
	field := func(f string, ty diff.Type, before, after *diff.Value) diff.Change {
		return diff.Change{Shape: meshprofile.ShapeMesh, Kind: "MeshTimeout", At: []string{"mesh-1/web-1", "backend", "", f}, Change: ty, Before: before, After: after}
	}
	base := meshTimeout("00-base", "connectTimeout: 10s")
	for _, c := range []struct {
		name, head string
		want       []diff.Change
	}{
		{"added: a request timeout", meshTimeout("00-base", "connectTimeout: 10s\n    http: {requestTimeout: 5s}"),
			[]diff.Change{field("http.requestTimeout", diff.Added, nil, val("5s", "00-base"))}},
		{"removed: the policy deleted", "", []diff.Change{field("connectTimeout", diff.Removed, val("10s", "00-base"), nil)}},
		{"changed: another connect timeout", meshTimeout("00-base", "connectTimeout: 5s"),
			[]diff.Change{field("connectTimeout", diff.Changed, val("10s", "00-base"), val("5s", "00-base"))}},
		{"moved: a policy whose name sorts later sets the same value", base + meshTimeout("01-more", "connectTimeout: 10s"),
			[]diff.Change{field("connectTimeout", diff.Moved, val("10s", "00-base"), val("10s", "01-more"))}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := meshprofile.Mesh(mesh.KindMeshTimeout, meshTree(t, dataplaneYAML+base), meshTree(t, dataplaneYAML+c.head))
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("changes (-want +got):\n%s", d)
			}
		})
	}
}

func val(v interface{}, from string) *diff.Value { return &diff.Value{Value: v, From: from} }

// TestMeshDiffKeepsMeshes: a policy reaches only the Dataplanes of its own mesh (its kuma.io/mesh
// label against the Dataplane's mesh field, both "default" when unset), as the webhook's index of
// each mesh has it, and a source of another mesh is no client of the proxy.
func TestMeshDiffKeepsMeshes(t *testing.T) {
	dataplane := func(name, meshField, service string) string {
		m := ""
		if meshField != "" {
			m = "mesh: " + meshField + "\n"
		}
		return "---\napiVersion: kuma.io/v1alpha1\nkind: Dataplane\n" + m + "metadata: {name: " + name + ", namespace: mesh-1}\n" +
			"spec:\n  networking:\n    inbound: [{tags: {kuma.io/service: " + service + "}}]\n    outbound: [{tags: {kuma.io/service: backend}}]\n"
	}
	labelled := func(doc, meshName string) string {
		return strings.Replace(doc, "namespace: mesh-1}", "namespace: mesh-1, labels: {kuma.io/mesh: "+meshName+"}}", 1)
	}
	field := func(proxy, outbound, from, f string, after *diff.Value) diff.Change {
		return diff.Change{Shape: meshprofile.ShapeMesh, Kind: "MeshTimeout", At: []string{proxy, outbound, from, f}, Change: diff.Added, After: after}
	}
	fromAll := func(name, conf string) string {
		return "---\napiVersion: policy.precedent.dev/v1alpha1\nkind: MeshTimeout\nmetadata: {name: " + name + ", namespace: mesh-1}\n" +
			"spec:\n  targetRef: {kind: Mesh}\n  from:\n  - targetRef: {kind: Mesh}\n    " + conf + "\n"
	}
	proxies := dataplane("web-a", "mesh-a", "web-a") + dataplane("web-b", "mesh-b", "web-b") + dataplane("web-d", "", "web-d")
	for _, c := range []struct {
		name, head string
		want       []diff.Change
	}{
		{"a policy of mesh-a reaches only the proxy of mesh-a", labelled(meshTimeout("only-a", "connectTimeout: 5s"), "mesh-a"),
			[]diff.Change{field("mesh-1/web-a", "backend", "", "connectTimeout", val("5s", "only-a"))}},
		{"a policy without the label is of the default mesh", meshTimeout("unlabelled", "connectTimeout: 5s"),
			[]diff.Change{field("mesh-1/web-d", "backend", "", "connectTimeout", val("5s", "unlabelled"))}},
		{"sources are those of the proxy's mesh", labelled(fromAll("from-b", "connectTimeout: 5s"), "mesh-b"),
			[]diff.Change{field("mesh-1/web-b", "", "web-b", "connectTimeout", val("5s", "from-b"))}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := meshprofile.Mesh(mesh.KindMeshTimeout, meshTree(t, proxies), meshTree(t, proxies+c.head))
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("changes (-want +got):\n%s", d)
			}
		})
	}
}
