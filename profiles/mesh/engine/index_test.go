package engine

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fleet builds a mesh of n Dataplanes (service svc-i, zone by parity, version by i%3) with outbounds
// to the first `outbounds` services, and `policies` MeshTimeouts at every level (policy i targets
// service svc-(i%n) at the Service level, and every 7th the Mesh, every 11th a MeshSubset), each
// with elements for two services and the Mesh. The benchmark and the index tests share it.
func fleet(n, policies, outbounds int) ([]Policy, []Dataplane) {
	dps := make([]Dataplane, n)
	for i := range dps {
		dps[i] = Dataplane{Namespace: "kuma-demo", Name: fmt.Sprintf("dp-%d", i),
			Inbound: []map[string]string{{ServiceTag: fmt.Sprintf("svc-%d", i), "kuma.io/zone": fmt.Sprintf("z%d", i%2), "version": fmt.Sprintf("v%d", i%3)}}}
		for o := 0; o < outbounds; o++ {
			dps[i].Outbound = append(dps[i].Outbound, map[string]string{ServiceTag: fmt.Sprintf("svc-%d", o)})
		}
	}
	ps := make([]Policy, 0, policies)
	for i := 0; i < policies; i++ {
		top := TargetRef{Kind: Service, Name: fmt.Sprintf("svc-%d", i%n)}
		switch {
		case i%7 == 0:
			top = TargetRef{Kind: Mesh}
		case i%11 == 0:
			top = TargetRef{Kind: MeshSubset, Tags: map[string]string{"version": fmt.Sprintf("v%d", i%3)}}
		}
		p := Policy{Kind: KindMeshTimeout, Namespace: "kuma-system", Name: fmt.Sprintf("p-%03d", i), TargetRef: top}
		p.To = []Element{
			NewElement(TargetRef{Kind: Service, Name: fmt.Sprintf("svc-%d", (i+1)%outbounds)}, map[string]interface{}{"connectTimeout": "1s"}),
			NewElement(TargetRef{Kind: Mesh}, map[string]interface{}{"http": map[string]interface{}{"requestTimeout": "5s"}}),
		}
		if i%5 == 0 {
			p.From = []Element{NewElement(TargetRef{Kind: Service, Name: fmt.Sprintf("svc-%d", i%n)}, map[string]interface{}{"connectTimeout": "3s"})}
		}
		ps = append(ps, p)
	}
	return ps, dps
}

// writes are policies written into a fleet: new ones at each level, and a replacement of p-003.
func writes(t testing.TB) []Policy {
	mt := func(doc string) Policy {
		return policy(t, "kind: MeshTimeout\nmetadata: {namespace: kuma-system, "+doc)
	}
	return []Policy{
		mt("name: zz-service}\nspec:\n  targetRef: {kind: Service, name: svc-1}\n  to:\n  - {targetRef: {kind: Mesh}, connectTimeout: 2s}\n"),
		mt("name: a-mesh}\nspec:\n  targetRef: {kind: Mesh}\n  to:\n  - {targetRef: {kind: Service, name: svc-2}, connectTimeout: 2s, http: {requestTimeout: 1s}}\n"),
		mt("name: p-003}\nspec:\n  targetRef: {kind: Service, name: svc-3}\n  to:\n  - {targetRef: {kind: Mesh}, connectTimeout: 9s, http: {requestTimeout: 9s}}\n"),
		mt("name: subset}\nspec:\n  targetRef: {kind: MeshSubset, tags: {version: v1}}\n  from:\n  - {targetRef: {kind: ServiceSubset, name: svc-4, tags: {version: v1}}, connectTimeout: 2s}\n  - {targetRef: {kind: Mesh}, connectTimeout: 2s}\n"),
		mt("name: proxy}\nspec:\n  targetRef: {kind: Proxy, name: dp-5}\n  to:\n  - {targetRef: {kind: Mesh}, connectTimeout: 1s, http: {requestTimeout: 1s, idleTimeout: 1s}}\n"),
	}
}

// TestIndexWriteWarningsAgreeWithShadowed: the index answers what WriteWarnings over the whole mesh
// answers, for writes at every level, in fleets of several sizes.
func TestIndexWriteWarningsAgreeWithShadowed(t *testing.T) {
	for _, n := range []int{1, 7, 40} {
		policies, dps := fleet(n, 60, 6)
		x := NewIndex(KindMeshTimeout, policies, dps)
		for _, w := range writes(t) {
			t.Run(fmt.Sprintf("%d dataplanes %s", n, w.Name), func(t *testing.T) {
				want := WriteWarnings(w, policies, dps, false)
				got := x.WriteWarnings(w, false)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("index warnings differ from WriteWarnings (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestIndexUpsertRemove: after Upsert and Remove the index answers as one built afresh.
func TestIndexUpsertRemove(t *testing.T) {
	policies, dps := fleet(30, 60, 6)
	x := NewIndex(KindMeshTimeout, policies, dps)
	current := append([]Policy(nil), policies...)
	for _, w := range writes(t) {
		x.Upsert(w)
		current = replace(current, w)
	}
	x.Remove("kuma-system/p-014")
	current = remove(current, "kuma-system/p-014")
	fresh := NewIndex(KindMeshTimeout, current, dps)
	probes := append(writes(t), current[:12]...)
	for _, w := range probes {
		if diff := cmp.Diff(fresh.WriteWarnings(w, false), x.WriteWarnings(w, false)); diff != "" {
			t.Errorf("write of %s: updated index differs from a fresh one (-fresh +updated):\n%s", w.Name, diff)
		}
		if diff := cmp.Diff(WriteWarnings(w, current, dps, false), x.WriteWarnings(w, false)); diff != "" {
			t.Errorf("write of %s: updated index differs from WriteWarnings (-want +got):\n%s", w.Name, diff)
		}
	}
}

func replace(list []Policy, p Policy) []Policy {
	for i := range list {
		if list[i].ID() == p.ID() {
			list[i] = p
			return list
		}
	}
	return append(list, p)
}

func remove(list []Policy, id string) []Policy {
	var out []Policy
	for _, p := range list {
		if p.ID() != id {
			out = append(out, p)
		}
	}
	return out
}

// TestIndexMADRExamples: on the MADR's examples the index agrees with WriteWarnings for every policy
// rewritten as it is.
func TestIndexMADRExamples(t *testing.T) {
	policies, dps := load(t, "testdata/madr")
	for _, kind := range []string{KindMeshTimeout, KindMeshTrafficPermission} {
		x := NewIndex(kind, policies, dps)
		for _, p := range policies {
			if p.Kind != kind {
				continue
			}
			if diff := cmp.Diff(WriteWarnings(p, policies, dps, true), x.WriteWarnings(p, true)); diff != "" {
				t.Errorf("%s %s (-want +got):\n%s", kind, p.Name, diff)
			}
		}
	}
}
