package picture

import "sort"

// Graph is one picture: the hierarchy's nodes and edges, the policies and where they attach, and
// the effective rules of each path shown.
type Graph struct {
	Nodes    []Node
	Edges    []Edge
	Policies []Policy
	Paths    []Path
}

// Node is one object of the hierarchy (or one section of it: a listener, a route rule). ID is
// unique within the picture.
type Node struct{ ID, Label string }

// Edge is a parent → child link of the hierarchy.
type Edge struct{ From, To string }

// Policy is one policy, drawn attached to the nodes it targets.
type Policy struct {
	ID, Label string
	Targets   []string // node IDs
}

// Path is the effective policy of one kind on one path, drawn beneath the path's deepest node.
type Path struct {
	Node string // the deepest node of the path
	Kind string // the policy kind, as the policies' labels start
	Rows []Row
}

// Row is one rule on a path: in effect from From, or (Struck) declared by From, which reaches the
// path, but not in effect there.
type Row struct {
	Rule, From string
	Struck     bool
}

// palette colours the policies, in the order of their labels; it repeats after its end.
var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"}

// colours gives each policy label a colour, by the sorted order of the labels.
func (g *Graph) colours() map[string]string {
	labels := make([]string, 0, len(g.Policies))
	for _, p := range g.Policies {
		labels = append(labels, p.Label)
	}
	sort.Strings(labels)
	out := make(map[string]string, len(labels))
	for i, l := range labels {
		out[l] = palette[i%len(palette)]
	}
	return out
}

// fromColour is the colour of the policy of kind named from ("ns/name"; labels are "Kind ns/name").
func fromColour(c map[string]string, kind, from string) string {
	if col, ok := c[kind+" "+from]; ok {
		return col
	}
	return "#555555"
}
