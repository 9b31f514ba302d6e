package diff

import (
	"sort"
	"strings"

	mesh "github.com/precedent-dev/precedent/profiles/mesh/engine"
)

// MeshTree is the mesh side of one tree: the mesh policies and the Dataplanes.
type MeshTree struct {
	Policies   []mesh.Policy
	Dataplanes []mesh.Dataplane
}

// Mesh compares the merged configuration of the policies of kind (MeshTimeout,
// MeshTrafficPermission) in base and head, field by field, for every proxy of either tree: each of
// its outbounds (to, MeshTimeout only) and each source of inbound traffic in the mesh (from). A
// field is added or removed when only one side sets it (a proxy in one tree only has all its fields
// on that side), changed when its value differs, moved when another policy sets the same value.
func Mesh(kind string, base, head MeshTree) []Change {
	proxies := map[string][2]*mesh.Dataplane{}
	for i := range base.Dataplanes {
		dp := &base.Dataplanes[i]
		e := proxies[proxyID(dp)]
		e[0] = dp
		proxies[proxyID(dp)] = e
	}
	for i := range head.Dataplanes {
		dp := &head.Dataplanes[i]
		e := proxies[proxyID(dp)]
		e[1] = dp
		proxies[proxyID(dp)] = e
	}
	sources := mesh.Sources(append(append([]mesh.Dataplane(nil), base.Dataplanes...), head.Dataplanes...))
	var out []Change
	for id, dps := range proxies {
		merge := func(d mesh.Direction, sel func(*mesh.Dataplane) mesh.Selector) (before, after mesh.Result) {
			if dps[0] != nil {
				before = mesh.Merge(kind, base.Policies, *dps[0], d, sel(dps[0]))
			}
			if dps[1] != nil {
				after = mesh.Merge(kind, head.Policies, *dps[1], d, sel(dps[1]))
			}
			return before, after
		}
		if kind != mesh.KindMeshTrafficPermission {
			for _, svc := range outbounds(dps) {
				b, a := merge(mesh.To, func(dp *mesh.Dataplane) mesh.Selector {
					tags, _ := dp.OutboundTo(svc)
					return mesh.Selector{Service: svc, Tags: tags}
				})
				out = appendFields(out, Change{Shape: ShapeMesh, Kind: kind, Proxy: id, Outbound: svc}, b, a)
			}
		}
		for _, src := range sources {
			b, a := merge(mesh.From, func(*mesh.Dataplane) mesh.Selector { return src })
			out = appendFields(out, Change{Shape: ShapeMesh, Kind: kind, Proxy: id, From: src.String()}, b, a)
		}
	}
	Sort(out)
	return out
}

func proxyID(dp *mesh.Dataplane) string {
	if dp.Namespace == "" {
		return dp.Name
	}
	return dp.Namespace + "/" + dp.Name
}

// outbounds lists the services the proxy has outbounds to, on either side, sorted.
func outbounds(dps [2]*mesh.Dataplane) []string {
	set := map[string]bool{}
	for _, dp := range dps {
		if dp == nil {
			continue
		}
		for _, o := range dp.Outbound {
			set[o[mesh.ServiceTag]] = true
		}
	}
	out := make([]string, 0, len(set))
	for s := range set {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// appendFields appends a change (at, with Field, Change and values set) per field that differs.
func appendFields(out []Change, at Change, before, after mesh.Result) []Change {
	fields := make([]string, 0, len(before.Origins)+len(after.Origins))
	for f := range before.Origins {
		fields = append(fields, f)
	}
	for f := range after.Origins {
		if _, ok := before.Origins[f]; !ok {
			fields = append(fields, f)
		}
	}
	sort.Strings(fields)
	for _, f := range fields {
		b, a := fieldValue(before, f), fieldValue(after, f)
		t, ok := compare(b, a, sameValue)
		if !ok {
			continue
		}
		c := at
		c.Field, c.Change, c.Before, c.After = f, t, b, a
		out = append(out, c)
	}
	return out
}

// fieldValue is the value of the dotted field path f in r's conf, and the policy that set it.
func fieldValue(r mesh.Result, f string) *Value {
	from, ok := r.Origins[f]
	if !ok {
		return nil
	}
	var v interface{} = r.Conf
	for _, seg := range strings.Split(f, ".") {
		m, _ := v.(map[string]interface{})
		v = m[seg]
	}
	return &Value{Value: v, From: from}
}
