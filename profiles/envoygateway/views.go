package envoygateway

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/precedent-dev/precedent/internal/diff"
	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/profile"
	"github.com/precedent-dev/precedent/internal/topology"
	engine "github.com/precedent-dev/precedent/profiles/envoygateway/engine"
)

// offlineWorld is the snapshot of an offline input, without the policy skip (nil: none).
func offlineWorld(in *profile.Offline, skip *unstructured.Unstructured) *world {
	kinds := map[string]bool{}
	for _, k := range profile.KindsOf(Name, in.Registry) {
		kinds[k.GVK.Kind] = true
	}
	objs := make([]worldObject, 0, len(in.Objects))
	var labeled []engine.Object
	for _, u := range in.Objects {
		if u == skip {
			continue
		}
		gk := u.GroupVersionKind().GroupKind()
		objs = append(objs, objectOf(gk, u))
		switch gk {
		case schema.GroupKind{Group: topology.Group, Kind: "Gateway"}, schema.GroupKind{Group: topology.Group, Kind: "HTTPRoute"}, schema.GroupKind{Group: topology.Group, Kind: "GRPCRoute"}:
			labeled = append(labeled, engine.Object{Kind: u.GetKind(), Key: topology.Key{Namespace: u.GetNamespace(), Name: u.GetName()}, Labels: u.GetLabels()})
		}
	}
	return newWorld(in.Graph, objs, labeled, in.Inv.Topology.NamespaceLabels, kinds, profile.ControllersOf(profile.KindsOf(Name, in.Registry)))
}

// Effective: Envoy Gateway's effective policy per (route rule, listener), with the source of every
// field, beneath target.
func (Profile) Effective(in *profile.Offline, k policy.Kind, target *topology.Target) ([]effective.Item, error) {
	items := offlineWorld(in, nil).snap.Items(k.GVK.Kind)
	if target == nil {
		return items, nil
	}
	return beneath(items, *target), nil
}

// Holders gives, per path of kind as Effective keys it, the policies Envoy Gateway records on the
// xDS route (engine.Snapshot.Holders).
func (Profile) Holders(in *profile.Offline, k policy.Kind) map[effective.ItemKey][]string {
	return offlineWorld(in, nil).snap.Holders(k.GVK.Kind)
}

// beneath keeps the items on paths through target.
func beneath(items []effective.Item, t topology.Target) []effective.Item {
	var out []effective.Item
	for _, it := range items {
		if (effective.ItemKey{Gateway: it.Gateway, Listener: it.Listener, Route: it.Route, Rule: it.Rule}).Beneath(t) {
			out = append(out, it)
		}
	}
	return out
}

// Diff compares the effective items of the profile's kinds between base and head.
func (p Profile) Diff(base, head *profile.Offline, kind string) ([]diff.Change, bool, error) {
	return profile.DiffEffective(Name, base, head, kind, p.Effective)
}
