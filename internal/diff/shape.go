package diff

import "encoding/json"

// Shape is what a change is about and how it reads: its object in the JSON report, the place and
// group it counts under, its sort key and its columns in the Markdown and terminal tables. The
// Gateway API path (ShapePath) is this package's; a profile whose changes are about something else
// (decisions per grant, fields per proxy) defines its own, and its changes carry their coordinates in
// Change.At, in the shape's order. A Shape is a comparable value: the terminal table starts a new
// header where it changes.
type Shape interface {
	// JSON is the contract's object of c, its sides already marshalled (Side).
	JSON(c *Change, before, after json.RawMessage) interface{}
	// Side is the JSON object of one side of a change (never nil).
	Side(v *Value) interface{}
	// Text is one side of a change in the tables (never nil).
	Text(v *Value) string
	// Markdown is one side of a change in a Markdown table (never nil).
	Markdown(v *Value) string
	// Title is the title of the Markdown table of c ("RateLimitPolicy on route ns/name").
	Title(c *Change) string
	// Group is what the summary counts c under as a route (its backend, its proxy).
	Group(c *Change) string
	// Place is the path (grant, proxy target) c is about, as one string.
	Place(c *Change) string
	// Key orders changes of one kind.
	Key(c *Change) []string
	// Columns and Cells are the Markdown table's header and row; the last two cells are the sides,
	// which Markdown renders apart.
	Columns() []string
	Cells(c *Change) []string
	// TableColumns and TableCells are the terminal table's: every column, the kind and the group
	// included.
	TableColumns() []string
	TableCells(c *Change) []string
}

// Valued is the sides of the shapes whose changes are about values and the policy each came from
// (ShapePath and others); a Shape embeds it.
type Valued struct{}

// Side is {"value", "from"}.
func (Valued) Side(v *Value) interface{} {
	return struct {
		Value interface{} `json:"value"`
		From  string      `json:"from"`
	}{v.Value, v.From}
}

// Text is `value (from ns/name)`, the value cut at the tables' width.
func (Valued) Text(v *Value) string { return valueText(v.Value) + " (from " + v.From + ")" }

// Markdown is the value as code, then where it came from.
func (Valued) Markdown(v *Value) string { return mdCode(v) }

// Text renders one side of a change of shape s in the tables: "-" for none.
func Text(v *Value, s Shape) string {
	if v == nil {
		return "-"
	}
	return s.Text(v)
}

// MD makes an untrusted string one safe line of Markdown text.
func MD(s string) string { return md(s) }

// CompareValues classifies one rule (field) seen before and after, as JSON values: ok false when
// nothing changed.
func CompareValues(before, after *Value) (Type, bool) { return compare(before, after, sameValue) }

// pathShape is the shape of a change to an effective policy of a Gateway API path: gateway, listener,
// route, rule, ruleId.
type pathShape struct{ Valued }

// ShapePath is the shape of the changes of the Gateway API profiles (Change's path fields).
var ShapePath Shape = pathShape{}

type pathJSON struct {
	Kind     string          `json:"kind"`
	Group    string          `json:"group"`
	Gateway  string          `json:"gateway"`
	Listener string          `json:"listener"`
	Route    string          `json:"route"`
	Rule     string          `json:"rule"`
	RuleID   string          `json:"ruleId"`
	Change   Type            `json:"change"`
	Before   json.RawMessage `json:"before"`
	After    json.RawMessage `json:"after"`
}

func (pathShape) JSON(c *Change, before, after json.RawMessage) interface{} {
	return pathJSON{c.Kind, c.APIGroup, c.Gateway, c.Listener, c.Route, c.Rule, c.RuleID, c.Change, before, after}
}

func (pathShape) Title(c *Change) string {
	if c.Route == "" {
		return c.Kind + " on gateway " + c.Gateway
	}
	return c.Kind + " on route " + c.Route
}

func (pathShape) Group(c *Change) string { return c.Route }

func (pathShape) Place(c *Change) string {
	return c.Gateway + " " + c.Listener + " " + c.Route + " " + c.Rule
}

func (pathShape) Key(c *Change) []string {
	return []string{c.Gateway, c.Route, c.Rule, c.Listener, c.RuleID}
}

func (pathShape) Columns() []string {
	return []string{"gateway", "listener", "rule", "rule id", "change", "before", "after"}
}

func (s pathShape) Cells(c *Change) []string {
	return []string{c.Gateway, c.Listener, c.Rule, c.RuleID, string(c.Change), Text(c.Before, s), Text(c.After, s)}
}

func (pathShape) TableColumns() []string {
	return []string{"kind", "gateway", "listener", "route", "rule", "rule id", "change", "before", "after"}
}

func (s pathShape) TableCells(c *Change) []string {
	cs := s.Cells(c)
	return append([]string{c.Kind, cs[0], cs[1], c.Route}, cs[2:]...)
}
