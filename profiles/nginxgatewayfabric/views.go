package nginxgatewayfabric

import (
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/internal/diff"
	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/profile"
	"github.com/precedent-dev/precedent/internal/topology"
	"github.com/precedent-dev/precedent/profiles/nginxgatewayfabric/engine"
)

// offlineWorld is the world of an offline input.
func offlineWorld(in *profile.Offline) *engine.World {
	routes := make([]*gwv1.HTTPRoute, len(in.Inv.Topology.HTTPRoutes))
	for i := range in.Inv.Topology.HTTPRoutes {
		routes[i] = &in.Inv.Topology.HTTPRoutes[i]
	}
	w := newWorld(in.Graph, routes, in.Objects)
	for i := range in.Inv.Topology.GRPCRoutes {
		r := &in.Inv.Topology.GRPCRoutes[i]
		w.GRPCRoutes[topology.Key{Namespace: r.Namespace, Name: r.Name}] = r
	}
	w.Controllers = profile.ControllersOf(profile.KindsOf(Name, in.Registry))
	w.Versions = versionsOf(in.Registry)
	return w
}

// versionsOf is the NGINX Gateway Fabric version each kind line of the profile predicts, by kind.
func versionsOf(reg *policy.Registry) map[string]string {
	out := map[string]string{}
	for _, k := range profile.KindsOf(Name, reg) {
		out[k.GVK.Kind] = k.VersionInForce()
	}
	return out
}

// Effective: the settings NGINX Gateway Fabric applies per (Gateway, route), beneath target.
func (Profile) Effective(in *profile.Offline, k policy.Kind, target *topology.Target) ([]effective.Item, error) {
	w := offlineWorld(in)
	items := w.Items(k.GVK.Kind, w.Decide())
	if target == nil {
		return items, nil
	}
	var out []effective.Item
	for _, it := range items {
		if itemKey(it).Beneath(*target) {
			out = append(out, it)
		}
	}
	return out, nil
}

// Diff compares the effective items of the profile's kinds between base and head.
func (p Profile) Diff(base, head *profile.Offline, kind string) ([]diff.Change, bool, error) {
	return profile.DiffEffective(Name, base, head, kind, p.Effective)
}
