package access

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/precedent-dev/precedent/internal/diff"
	"github.com/precedent-dev/precedent/internal/profile"
	access "github.com/precedent-dev/precedent/profiles/access/engine"
)

// Other stands, in an AccessPolicy change, for any source (or tool) that no rule of the policies of
// that Gateway and Backend names: all such sources (tools) are decided alike.
const Other = "*"

// other is a source or tool name no rule can name (rules name DNS labels, ServiceAccounts, SPIFFE IDs).
const other = "\x00other"

// AccessTree is the access side of one tree: the AccessPolicies (and XAccessPolicies), the Gateway →
// Backend topology and the settings they are evaluated with.
type AccessTree struct {
	Policies []access.Policy
	Topology access.Topology
	Settings access.Settings
}

// Access compares the AccessPolicy decisions of base and head, grant by grant: for each Gateway and
// Backend behind it (through an HTTPRoute) where some policy of either tree applies, each source
// named by a rule of those policies (and Other) calling each tool they name (and Other). A decision
// is allow or deny with the deciding policy: for a denial the policy that denied, for an allow the
// policy whose rule allowed at the last level that restricts ("" when no level restricts).
// ExternalAuth rules are assumed to allow, as `precedent access` assumes without --external-auth.
// A grant is added (removed) when its Backend is reachable through the Gateway in head (base) only;
// changed when the decision differs; moved when another policy decides it alike. kind names the
// changes (AccessPolicy).
func Access(kind string, base, head AccessTree) []diff.Change {
	type pair struct{ gw, be string }
	// The Gateway/Backend pairs some policy of either tree applies to, through either topology.
	seen := map[pair]bool{}
	var pairs []pair
	for _, t := range []AccessTree{base, head} {
		for i := range t.Policies {
			p := &t.Policies[i]
			for _, ref := range p.Targets {
				key := p.Namespace + "/" + ref.Name
				for _, topo := range []access.Topology{base.Topology, head.Topology} {
					var found []pair
					if p.Level() == access.LevelGateway {
						for _, be := range topo.BackendsBehind(key) {
							found = append(found, pair{key, be})
						}
					} else {
						for _, gw := range topo.GatewaysInFront(key) {
							found = append(found, pair{gw, key})
						}
					}
					for _, pr := range found {
						if !seen[pr] {
							seen[pr] = true
							pairs = append(pairs, pr)
						}
					}
				}
			}
		}
	}
	linked := func(t AccessTree, pr pair) bool { return slices.Contains(t.Topology.BackendsBehind(pr.gw), pr.be) }
	var out []diff.Change
	for _, pr := range pairs {
		gb, bb := levels(base, pr.gw, pr.be)
		gh, bh := levels(head, pr.gw, pr.be)
		sources, tools := names(gb, bb, gh, bh)
		for _, src := range sources {
			for _, tool := range tools {
				req := access.Request{Source: src, Tool: tool}
				var before, after *diff.Value
				if linked(base, pr) {
					before = decide(req, gb, bb, base.Settings)
				}
				if linked(head, pr) {
					after = decide(req, gh, bh, head.Settings)
				}
				t, ok := compareDecisions(before, after)
				if !ok {
					continue
				}
				out = append(out, diff.Change{Shape: ShapeGrant, Kind: kind, At: []string{pr.gw, pr.be, sourceName(src), toolName(tool)},
					Change: t, Before: before, After: after})
			}
		}
	}
	diff.Sort(out)
	return out
}

// levels returns the policies of t targeting the Gateway gw and the Backend be ("namespace/name").
func levels(t AccessTree, gw, be string) (gateway, backend []access.Policy) {
	s := t.Settings
	if s.BackendKind == "" {
		s = access.DefaultSettings()
	}
	gwNS, gwName, _ := strings.Cut(gw, "/")
	beNS, beName, _ := strings.Cut(be, "/")
	for _, p := range t.Policies {
		if p.TargetsObject(access.GatewayGroup, access.GatewayKind, gwNS, gwName) {
			gateway = append(gateway, p)
		}
		if p.TargetsObject(s.BackendGroup, s.BackendKind, beNS, beName) {
			backend = append(backend, p)
		}
	}
	return gateway, backend
}

// names lists the sources and tools the rules of the policies name, sorted, then Other.
func names(lists ...[]access.Policy) ([]access.Principal, []string) {
	srcSet, toolSet := map[access.Principal]bool{}, map[string]bool{}
	for _, ps := range lists {
		for _, p := range ps {
			for _, r := range p.Rules {
				srcSet[r.Source] = true
				for _, t := range r.Tools {
					toolSet[t] = true
				}
			}
		}
	}
	sources := make([]access.Principal, 0, len(srcSet)+1)
	for s := range srcSet {
		sources = append(sources, s)
	}
	sort.Slice(sources, func(i, j int) bool { return sourceName(sources[i]) < sourceName(sources[j]) })
	tools := make([]string, 0, len(toolSet)+1)
	for t := range toolSet {
		tools = append(tools, t)
	}
	sort.Strings(tools)
	return append(sources, access.Principal{ServiceAccount: other}), append(tools, other)
}

// decide evaluates one request and names the deciding policy.
func decide(req access.Request, gateway, backend []access.Policy, s access.Settings) *diff.Value {
	d := access.Evaluate(req, gateway, backend, s)
	v := &diff.Value{Decision: string(d.Decision), Policy: d.Policy}
	if d.Decision == access.Allow {
		for i := len(d.Trace) - 1; i >= 0; i-- {
			if e := d.Trace[i]; e.Type != access.ExternalAuth && e.Result == string(access.Allow) {
				v.Policy = e.Policy
				break
			}
		}
	}
	return v
}

func compareDecisions(before, after *diff.Value) (diff.Type, bool) {
	switch {
	case before == nil && after == nil:
		return "", false
	case before == nil:
		return diff.Added, true
	case after == nil:
		return diff.Removed, true
	case before.Decision != after.Decision:
		return diff.Changed, true
	case before.Policy != after.Policy:
		return diff.Moved, true
	}
	return "", false
}

// sourceName is the CLI form of a source (`precedent access --source`), or Other.
func sourceName(p access.Principal) string {
	switch {
	case p.ServiceAccount == other:
		return Other
	case p.ServiceAccount != "":
		return "serviceaccount:" + p.ServiceAccount
	}
	return "spiffe:" + p.SPIFFE
}

func toolName(t string) string {
	if t == other {
		return Other
	}
	return t
}

// grantShape is the shape of a change to an AccessPolicy decision: At is gateway, backend, source,
// tool; the sides are decisions and the policy that decided.
type grantShape struct{}

// ShapeGrant is the shape of the AccessPolicy changes.
var ShapeGrant diff.Shape = grantShape{}

type grantJSON struct {
	Kind    string          `json:"kind"`
	Group   string          `json:"group"`
	Gateway string          `json:"gateway"`
	Backend string          `json:"backend"`
	Source  string          `json:"source"`
	Tool    string          `json:"tool"`
	Change  diff.Type       `json:"change"`
	Before  json.RawMessage `json:"before"`
	After   json.RawMessage `json:"after"`
}

func (grantShape) JSON(c *diff.Change, before, after json.RawMessage) interface{} {
	return grantJSON{c.Kind, c.APIGroup, c.At[0], c.At[1], c.At[2], c.At[3], c.Change, before, after}
}

func (grantShape) Side(v *diff.Value) interface{} {
	return struct {
		Decision string `json:"decision"`
		Policy   string `json:"policy"`
	}{v.Decision, v.Policy}
}

// Text is `deny (ns/name)`, or the decision alone when no policy decided.
func (grantShape) Text(v *diff.Value) string {
	if v.Policy == "" {
		return v.Decision
	}
	return v.Decision + " (" + v.Policy + ")"
}

func (s grantShape) Markdown(v *diff.Value) string { return diff.MD(s.Text(v)) }

func (grantShape) Title(c *diff.Change) string { return c.Kind + " on backend " + c.At[1] }

func (grantShape) Group(c *diff.Change) string { return c.At[1] }

func (grantShape) Place(c *diff.Change) string { return strings.Join(c.At, " ") }

func (grantShape) Key(c *diff.Change) []string { return c.At }

func (grantShape) Columns() []string {
	return []string{"gateway", "source", "tool", "change", "before", "after"}
}

func (s grantShape) Cells(c *diff.Change) []string {
	return []string{c.At[0], c.At[2], c.At[3], string(c.Change), diff.Text(c.Before, s), diff.Text(c.After, s)}
}

func (grantShape) TableColumns() []string {
	return []string{"kind", "gateway", "backend", "source", "tool", "change", "before", "after"}
}

func (s grantShape) TableCells(c *diff.Change) []string {
	cs := s.Cells(c)
	return append([]string{c.Kind, cs[0], c.At[1]}, cs[1:]...)
}

// Diff compares the access decisions of each access kind between base and head (files, or the
// cluster and the cluster with files applied: the cluster loader reads Sources).
func (Profile) Diff(base, head *profile.Offline, kind string) ([]diff.Change, bool, error) {
	return profile.DiffEach(own, kind, func(gk schema.GroupKind) []diff.Change {
		return Access(gk.Kind, tree(base, gk), tree(head, gk))
	})
}

// tree reads the valid access policies of kind gk of an input (invalid ones are reported by
// validate) and its Gateway → Backend topology.
func tree(in *profile.Offline, gk schema.GroupKind) AccessTree {
	t := AccessTree{Settings: SettingsOf(in.Settings)}
	for _, u := range in.Objects {
		if u.GroupVersionKind().GroupKind() != gk {
			continue
		}
		if p, errs := access.Parse(u, t.Settings); len(errs) == 0 {
			t.Policies = append(t.Policies, p)
		}
	}
	if len(t.Policies) > 0 {
		t.Topology, _ = access.NewTopology(in.Objects, t.Settings) // undecodable objects: reported by validate
	}
	return t
}
