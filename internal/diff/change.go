package diff

import (
	"encoding/json"
	"sort"

	"github.com/precedent-dev/precedent/internal/finding"
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

// Change is one line of the diff. Which fields are set depends on Shape; MarshalJSON writes the
// shape's fields only, in the contract's order.
type Change struct {
	// Shape is what the change is about and how it reads; nil is ShapePath.
	Shape Shape
	Kind  string
	// APIGroup is the API group of Kind: two groups can have a kind of one name.
	APIGroup string
	// ShapePath.
	Gateway, Listener, Route, Rule, RuleID string
	// At are the coordinates of a change of another shape, in its shape's order.
	At []string

	Change        Type
	Before, After *Value
}

// Value is one side of a change: a rule body or field value and the policy it came from
// (ShapePath and most shapes), or a decision and the policy that decided it.
type Value struct {
	Value    interface{}
	From     string
	Decision string
	Policy   string
}

// shape is c's Shape, ShapePath when unset.
func (c *Change) shape() Shape {
	if c.Shape == nil {
		return ShapePath
	}
	return c.Shape
}

// MarshalJSON writes the contract's shape of the change.
func (c Change) MarshalJSON() ([]byte, error) {
	s := c.shape()
	before, err := marshalSide(c.Before, s)
	if err != nil {
		return nil, err
	}
	after, err := marshalSide(c.After, s)
	if err != nil {
		return nil, err
	}
	return json.Marshal(s.JSON(&c, before, after))
}

func marshalSide(v *Value, s Shape) (json.RawMessage, error) {
	if v == nil {
		return json.RawMessage("null"), nil
	}
	return json.Marshal(s.Side(v))
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
	// Findings are the errors and warnings above as validate's -o json gives them (code,
	// severity, object, field, message, file, line).
	Findings []finding.Finding `json:"findings"`
	// Diagram is a Mermaid flowchart of the paths the changes touch, which Markdown embeds; it is
	// not part of the JSON.
	Diagram string `json:"-"`
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
	r.Findings = []finding.Finding{}
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
func (c *Change) Group() string { return c.shape().Group(c) }

// Place is the path (grant, proxy target) a change is about, as one string.
func (c *Change) Place() string { return c.shape().Place(c) }

// Sort orders the changes of one kind by their shape's key: like `precedent effective` orders items
// (gateway, route, rule, listener), then by rule id, for Gateway API paths.
func Sort(changes []Change) {
	sort.SliceStable(changes, func(i, j int) bool {
		ka, kb := changes[i].shape().Key(&changes[i]), changes[j].shape().Key(&changes[j])
		for n := range ka {
			if n < len(kb) && ka[n] != kb[n] {
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
