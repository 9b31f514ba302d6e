package diff

import (
	"encoding/json"
	"sort"
)

// Type is what happened to one rule (or decision, or field).
type Type string

// Change types. Moved: the same value, now from another source policy.
const (
	Added   Type = "added"
	Removed Type = "removed"
	Changed Type = "changed"
	Moved   Type = "moved"
)

// Shape says which profile a change is about, hence which fields it carries.
type Shape int

const (
	// ShapePath: an effective policy of a Gateway API path (gateway, listener, route, rule, ruleId).
	ShapePath Shape = iota
	// ShapeGrant: an AccessPolicy decision (gateway, backend, source, tool).
	ShapeGrant
	// ShapeMesh: a merged mesh field (proxy, outbound or from, field).
	ShapeMesh
)

// Change is one line of the diff. Which fields are set depends on Shape; MarshalJSON writes the
// shape's fields only, in the contract's order.
type Change struct {
	Shape Shape
	Kind  string
	// ShapePath.
	Gateway, Listener, Route, Rule, RuleID string
	// ShapeGrant (Gateway too).
	Backend, Source, Tool string
	// ShapeMesh. Outbound is set for `to` merges, From for `from` merges.
	Proxy, Outbound, From, Field string

	Change        Type
	Before, After *Value
}

// Value is one side of a change: a rule body or field value and the policy it came from
// (ShapePath, ShapeMesh), or a decision and the policy that decided it (ShapeGrant).
type Value struct {
	Value    interface{}
	From     string
	Decision string
	Policy   string
}

type pathJSON struct {
	Kind     string          `json:"kind"`
	Gateway  string          `json:"gateway"`
	Listener string          `json:"listener"`
	Route    string          `json:"route"`
	Rule     string          `json:"rule"`
	RuleID   string          `json:"ruleId"`
	Change   Type            `json:"change"`
	Before   json.RawMessage `json:"before"`
	After    json.RawMessage `json:"after"`
}

type grantJSON struct {
	Kind    string          `json:"kind"`
	Gateway string          `json:"gateway"`
	Backend string          `json:"backend"`
	Source  string          `json:"source"`
	Tool    string          `json:"tool"`
	Change  Type            `json:"change"`
	Before  json.RawMessage `json:"before"`
	After   json.RawMessage `json:"after"`
}

type meshJSON struct {
	Kind     string          `json:"kind"`
	Proxy    string          `json:"proxy"`
	Outbound *string         `json:"outbound,omitempty"`
	From     *string         `json:"from,omitempty"`
	Field    string          `json:"field"`
	Change   Type            `json:"change"`
	Before   json.RawMessage `json:"before"`
	After    json.RawMessage `json:"after"`
}

// MarshalJSON writes the contract's shape of the change.
func (c Change) MarshalJSON() ([]byte, error) {
	before, err := c.Before.marshal(c.Shape)
	if err != nil {
		return nil, err
	}
	after, err := c.After.marshal(c.Shape)
	if err != nil {
		return nil, err
	}
	switch c.Shape {
	case ShapeGrant:
		return json.Marshal(grantJSON{c.Kind, c.Gateway, c.Backend, c.Source, c.Tool, c.Change, before, after})
	case ShapeMesh:
		m := meshJSON{Kind: c.Kind, Proxy: c.Proxy, Field: c.Field, Change: c.Change, Before: before, After: after}
		if c.From != "" {
			m.From = &c.From
		} else {
			m.Outbound = &c.Outbound
		}
		return json.Marshal(m)
	}
	return json.Marshal(pathJSON{c.Kind, c.Gateway, c.Listener, c.Route, c.Rule, c.RuleID, c.Change, before, after})
}

func (v *Value) marshal(s Shape) (json.RawMessage, error) {
	if v == nil {
		return json.RawMessage("null"), nil
	}
	if s == ShapeGrant {
		return json.Marshal(struct {
			Decision string `json:"decision"`
			Policy   string `json:"policy"`
		}{v.Decision, v.Policy})
	}
	return json.Marshal(struct {
		Value interface{} `json:"value"`
		From  string      `json:"from"`
	}{v.Value, v.From})
}

// Summary counts the changes: the distinct paths (or grants, or proxy targets) and routes (or
// backends, or proxies) they are about, and the changes of each type.
type Summary struct {
	Paths   int `json:"paths"`
	Routes  int `json:"routes"`
	Added   int `json:"added"`
	Removed int `json:"removed"`
	Changed int `json:"changed"`
	Moved   int `json:"moved"`
}

// Report is the document `precedent diff -o json` prints.
type Report struct {
	Changes  []Change `json:"changes"`
	Summary  Summary  `json:"summary"`
	Errors   []string `json:"errors"`
	Warnings []string `json:"warnings"`
}

// NewReport builds the report of changes (in the order given) with its summary; nil lists become
// empty ones, so the JSON never holds null lists.
func NewReport(changes []Change, errs, warns []string) Report {
	r := Report{Changes: changes, Errors: errs, Warnings: warns}
	if r.Changes == nil {
		r.Changes = []Change{}
	}
	if r.Errors == nil {
		r.Errors = []string{}
	}
	if r.Warnings == nil {
		r.Warnings = []string{}
	}
	r.Summary = Summarize(changes)
	return r
}

// Summarize counts changes by type, and the distinct places (Place) and groups (Group) they are in.
func Summarize(changes []Change) Summary {
	var s Summary
	places, groups := map[[2]string]bool{}, map[[2]string]bool{}
	for _, c := range changes {
		switch c.Change {
		case Added:
			s.Added++
		case Removed:
			s.Removed++
		case Changed:
			s.Changed++
		case Moved:
			s.Moved++
		}
		places[[2]string{c.Kind, c.Place()}] = true
		if g := c.Group(); g != "" {
			groups[[2]string{c.Kind, g}] = true
		}
	}
	s.Paths, s.Routes = len(places), len(groups)
	return s
}

// Group is what a change is grouped under in a report: its route (or, for a path without a route,
// its Gateway), its backend, or its proxy.
func (c *Change) Group() string {
	switch c.Shape {
	case ShapeGrant:
		return c.Backend
	case ShapeMesh:
		return c.Proxy
	}
	return c.Route
}

// Place is the path (grant, proxy target) a change is about, as one string.
func (c *Change) Place() string {
	switch c.Shape {
	case ShapeGrant:
		return c.Gateway + " " + c.Backend + " " + c.Source + " " + c.Tool
	case ShapeMesh:
		return c.Proxy + " " + c.Outbound + " " + c.From
	}
	return c.Gateway + " " + c.Listener + " " + c.Route + " " + c.Rule
}

// Sort orders the changes of one kind like `precedent effective` orders items (gateway, route, rule,
// listener), then by rule id; grants by gateway, backend, source, tool; mesh changes by proxy,
// outbound, source, field.
func Sort(changes []Change) {
	key := func(c *Change) []string {
		switch c.Shape {
		case ShapeGrant:
			return []string{c.Gateway, c.Backend, c.Source, c.Tool}
		case ShapeMesh:
			return []string{c.Proxy, c.Outbound, c.From, c.Field}
		}
		return []string{c.Gateway, c.Route, c.Rule, c.Listener, c.RuleID}
	}
	sort.SliceStable(changes, func(i, j int) bool {
		ka, kb := key(&changes[i]), key(&changes[j])
		for n := range ka {
			if ka[n] != kb[n] {
				return ka[n] < kb[n]
			}
		}
		return false
	})
}

// compare classifies one rule (field) seen before and after: ok false when nothing changed.
func compare(before, after *Value, equal func(a, b interface{}) bool) (Type, bool) {
	switch {
	case before == nil && after == nil:
		return "", false
	case before == nil:
		return Added, true
	case after == nil:
		return Removed, true
	case !equal(before.Value, after.Value):
		return Changed, true
	case before.From != after.From:
		return Moved, true
	}
	return "", false
}
