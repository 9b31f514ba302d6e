package mesh_test

import (
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
