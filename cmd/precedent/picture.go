package main

import (
	"sort"
	"strings"

	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/picture"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/topology"
)

// drawing builds the picture of items (of kinds) over the input: each item's path as a chain
// GatewayClass → Gateway → listener → route → rule (the sections shown as the item shows them),
// the policies of kinds attached where they target, and each item's rules: those in effect, and
// struck through, those that policies reaching the path declare but that are not in effect there.
func drawing(o *input, kinds []policy.Kind, items []effective.Item) picture.Graph {
	d := &drawer{nodes: map[string]bool{}, edges: map[picture.Edge]bool{}}
	views := map[string][]*policy.Policy{}
	for _, k := range kinds {
		views[k.GVK.Kind] = o.inv.Views(k)
	}
	for _, it := range items {
		chain := d.chain(o.topology(), it)
		reaching := map[string]bool{}
		for _, p := range views[it.Kind] {
			for _, t := range p.Targets {
				if id := targetNode(p.Ref.Namespace, t); chainHas(chain, id) {
					reaching[p.Ref.String()] = true
				}
			}
		}
		path := picture.Path{Node: chain[len(chain)-1], Kind: it.Kind}
		for _, id := range sortedKeys(it.Sources) {
			path.Rows = append(path.Rows, picture.Row{Rule: id, From: it.Sources[id]})
		}
		for _, p := range views[it.Kind] {
			if !reaching[p.Ref.String()] {
				continue
			}
			for _, id := range p.RuleIDs() {
				if it.Sources[id] != p.Ref.String() {
					path.Rows = append(path.Rows, picture.Row{Rule: id, From: p.Ref.String(), Struck: true})
				}
			}
		}
		d.g.Paths = append(d.g.Paths, path)
	}
	for _, k := range kinds {
		for _, p := range views[k.GVK.Kind] {
			pol := picture.Policy{ID: "policy " + k.GVK.Kind + " " + p.Ref.String(), Label: k.GVK.Kind + " " + p.Ref.String()}
			for _, t := range p.Targets {
				if id := targetNode(p.Ref.Namespace, t); d.nodes[id] {
					pol.Targets = append(pol.Targets, id)
				}
			}
			if len(pol.Targets) > 0 { // only the policies of the paths drawn
				d.g.Policies = append(d.g.Policies, pol)
			}
		}
	}
	return d.g
}

type drawer struct {
	g     picture.Graph
	nodes map[string]bool
	edges map[picture.Edge]bool
}

func (d *drawer) node(id, label string) {
	if !d.nodes[id] {
		d.nodes[id] = true
		d.g.Nodes = append(d.g.Nodes, picture.Node{ID: id, Label: label})
	}
}

func (d *drawer) edge(from, to string) {
	e := picture.Edge{From: from, To: to}
	if !d.edges[e] {
		d.edges[e] = true
		d.g.Edges = append(d.g.Edges, e)
	}
}

// chain adds the nodes and edges of it's path and returns their IDs, least specific first.
func (d *drawer) chain(g *topology.Graph, it effective.Item) []string {
	var chain []string
	add := func(id, label string) {
		d.node(id, label)
		if n := len(chain); n > 0 {
			d.edge(chain[n-1], id)
		}
		chain = append(chain, id)
	}
	ns, name, _ := strings.Cut(it.Gateway, "/")
	if gw, ok := g.Gateway(topology.Key{Namespace: ns, Name: name}); ok {
		add("GatewayClass "+string(gw.Spec.GatewayClassName), "GatewayClass "+string(gw.Spec.GatewayClassName))
	}
	add("Gateway "+it.Gateway, "Gateway "+it.Gateway)
	if it.Listener != "" {
		if strings.HasPrefix(it.Listener, "ListenerSet ") {
			ls, _, _ := strings.Cut(it.Listener, "#")
			add(ls, ls)
			add(it.Listener, it.Listener)
		} else {
			add("Gateway "+it.Gateway+"#"+it.Listener, "listener "+it.Listener)
		}
	}
	if it.Route != "" {
		kind := "HTTPRoute"
		rns, rname, _ := strings.Cut(it.Route, "/")
		for _, k := range []string{"HTTPRoute", "GRPCRoute", "TLSRoute", "TCPRoute", "UDPRoute"} {
			if _, ok := g.Route(topology.Target{Kind: k, Namespace: rns, Name: rname}); ok {
				kind = k
				break
			}
		}
		add(kind+" "+it.Route, kind+" "+it.Route)
		if it.Rule != "" {
			add(kind+" "+it.Route+"#"+it.Rule, "rule "+it.Rule)
		}
	}
	return chain
}

// targetNode is the node ID of a policy's target in namespace ns, as chain names its nodes.
func targetNode(ns string, t policy.TargetRef) string {
	switch t.Kind {
	case "GatewayClass":
		return "GatewayClass " + t.Name
	case "ListenerSet":
		return "ListenerSet " + ns + "/" + t.Name + section(t.SectionName)
	}
	return t.Kind + " " + ns + "/" + t.Name + section(t.SectionName)
}

func section(s string) string {
	if s == "" {
		return ""
	}
	return "#" + s
}

func chainHas(chain []string, id string) bool {
	for _, c := range chain {
		if c == id {
			return true
		}
	}
	return false
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
