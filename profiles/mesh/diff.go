package mesh

import (
	"encoding/json"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/precedent-dev/precedent/internal/diff"
	"github.com/precedent-dev/precedent/internal/profile"
	mesh "github.com/precedent-dev/precedent/profiles/mesh/engine"
)

// MeshTree is the mesh side of one tree: the mesh policies and the Dataplanes.
type MeshTree struct {
	Policies   []mesh.Policy
	Dataplanes []mesh.Dataplane
}

// Mesh compares the merged configuration of the policies of kind (MeshTimeout,
// MeshTrafficPermission) in base and head, field by field, for every proxy of either tree: each of
// its outbounds (to, MeshTimeout only) and each source of inbound traffic in its mesh (from). Only
// the policies of the proxy's mesh (their kuma.io/mesh label, the Dataplane's mesh field, both
// "default" when unset) reach it, as the webhook's index of each mesh has it. A field is added or
// removed when only one side sets it (a proxy in one tree only has all its fields on that side),
// changed when its value differs, moved when another policy sets the same value.
func Mesh(kind string, base, head MeshTree) []diff.Change {
	proxies := map[string][2]*mesh.Dataplane{}
	for side, t := range []MeshTree{base, head} {
		for i := range t.Dataplanes {
			dp := &t.Dataplanes[i]
			e := proxies[proxyID(dp)]
			e[side] = dp
			proxies[proxyID(dp)] = e
		}
	}
	var out []diff.Change
	for id, dps := range proxies {
		out = append(out, proxyChanges(kind, id, dps, [2]MeshTree{base, head})...)
	}
	diff.Sort(out)
	return out
}

// proxyChanges compares one proxy (dps: its Dataplane in base and in head, nil where it has none)
// with the policies and sources of its mesh on each side.
func proxyChanges(kind, id string, dps [2]*mesh.Dataplane, trees [2]MeshTree) []diff.Change {
	var pols [2][]mesh.Policy
	var peers []mesh.Dataplane
	for side, dp := range dps {
		if dp != nil {
			pols[side] = trees[side].policiesOf(dp.MeshName())
			peers = append(peers, trees[side].dataplanesOf(dp.MeshName())...)
		}
	}
	merge := func(d mesh.Direction, sel func(*mesh.Dataplane) mesh.Selector) (sides [2]mesh.Result) {
		for side, dp := range dps {
			if dp != nil {
				sides[side] = mesh.Merge(kind, pols[side], *dp, d, sel(dp))
			}
		}
		return sides
	}
	var out []diff.Change
	if kind != mesh.KindMeshTrafficPermission {
		for _, svc := range outbounds(dps) {
			r := merge(mesh.To, func(dp *mesh.Dataplane) mesh.Selector {
				tags, _ := dp.OutboundTo(svc)
				return mesh.Selector{Service: svc, Tags: tags}
			})
			out = appendFields(out, diff.Change{Shape: ShapeMesh, Kind: kind, At: []string{id, svc, "", ""}}, r[0], r[1])
		}
	}
	for _, src := range mesh.Sources(peers) {
		r := merge(mesh.From, func(*mesh.Dataplane) mesh.Selector { return src })
		out = appendFields(out, diff.Change{Shape: ShapeMesh, Kind: kind, At: []string{id, "", src.String(), ""}}, r[0], r[1])
	}
	return out
}

// policiesOf returns the tree's policies of mesh name.
func (t MeshTree) policiesOf(name string) []mesh.Policy {
	return ofMesh(t.Policies, name, (*mesh.Policy).MeshName)
}

// dataplanesOf returns the tree's Dataplanes of mesh name.
func (t MeshTree) dataplanesOf(name string) []mesh.Dataplane {
	return ofMesh(t.Dataplanes, name, (*mesh.Dataplane).MeshName)
}

// ofMesh returns the items of list whose mesh is name.
func ofMesh[T any](list []T, name string, meshOf func(*T) string) []T {
	var out []T
	for i := range list {
		if meshOf(&list[i]) == name {
			out = append(out, list[i])
		}
	}
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
func appendFields(out []diff.Change, at diff.Change, before, after mesh.Result) []diff.Change {
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
		t, ok := diff.CompareValues(b, a)
		if !ok {
			continue
		}
		c := at
		c.At = []string{at.At[0], at.At[1], at.At[2], f}
		c.Change, c.Before, c.After = t, b, a
		out = append(out, c)
	}
	return out
}

// fieldValue is the value of the dotted field path f in r's conf, and the policy that set it.
func fieldValue(r mesh.Result, f string) *diff.Value {
	from, ok := r.Origins[f]
	if !ok {
		return nil
	}
	var v interface{} = r.Conf
	for _, seg := range strings.Split(f, ".") {
		m, _ := v.(map[string]interface{})
		v = m[seg]
	}
	return &diff.Value{Value: v, From: from}
}

// meshShape is the shape of a change to a merged mesh field: At is proxy, outbound (`to` merges),
// from (`from` merges), field; the sides are values and the policy that set them.
type meshShape struct{ diff.Valued }

// ShapeMesh is the shape of the mesh changes.
var ShapeMesh diff.Shape = meshShape{}

type meshJSON struct {
	Kind     string          `json:"kind"`
	Group    string          `json:"group"`
	Proxy    string          `json:"proxy"`
	Outbound *string         `json:"outbound,omitempty"`
	From     *string         `json:"from,omitempty"`
	Field    string          `json:"field"`
	Change   diff.Type       `json:"change"`
	Before   json.RawMessage `json:"before"`
	After    json.RawMessage `json:"after"`
}

func (meshShape) JSON(c *diff.Change, before, after json.RawMessage) interface{} {
	m := meshJSON{Kind: c.Kind, Group: c.APIGroup, Proxy: c.At[0], Field: c.At[3], Change: c.Change, Before: before, After: after}
	if from := c.At[2]; from != "" {
		m.From = &from
	} else {
		outbound := c.At[1]
		m.Outbound = &outbound
	}
	return m
}

func (meshShape) Title(c *diff.Change) string { return c.Kind + " on proxy " + c.At[0] }

func (meshShape) Group(c *diff.Change) string { return c.At[0] }

func (meshShape) Place(c *diff.Change) string { return c.At[0] + " " + c.At[1] + " " + c.At[2] }

func (meshShape) Key(c *diff.Change) []string { return c.At }

func (meshShape) Columns() []string {
	return []string{"outbound", "from", "field", "change", "before", "after"}
}

func (s meshShape) Cells(c *diff.Change) []string {
	return []string{c.At[1], c.At[2], c.At[3], string(c.Change), diff.Text(c.Before, s), diff.Text(c.After, s)}
}

func (meshShape) TableColumns() []string {
	return []string{"kind", "proxy", "outbound", "from", "field", "change", "before", "after"}
}

func (s meshShape) TableCells(c *diff.Change) []string {
	return append([]string{c.Kind, c.At[0]}, s.Cells(c)...)
}

// Diff compares the merged configuration of Precedent's mesh kinds per proxy between base and head
// (files, or the cluster and the cluster with files applied: the cluster loader reads Sources).
func (Profile) Diff(base, head *profile.Offline, kind string) ([]diff.Change, bool, error) {
	return profile.DiffEach(own, kind, func(gk schema.GroupKind) []diff.Change {
		return Mesh(gk.Kind, tree(base), tree(head))
	})
}

// tree reads the valid mesh policies of Precedent's kinds and the Dataplanes of an input.
func tree(in *profile.Offline) MeshTree {
	var t MeshTree
	for _, u := range in.Objects {
		gk := u.GroupVersionKind().GroupKind()
		switch {
		case gk == MeshTimeoutKind || gk == MeshPermissionKind:
			if p, errs := mesh.Parse(u); len(errs) == 0 {
				t.Policies = append(t.Policies, p)
			}
		case gk == DataplaneKind:
			if dp, err := mesh.ParseDataplane(u); err == nil {
				t.Dataplanes = append(t.Dataplanes, dp)
			}
		}
	}
	return t
}
