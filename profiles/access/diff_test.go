package access_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/precedent-dev/precedent/internal/diff"
	accessprofile "github.com/precedent-dev/precedent/profiles/access"
	access "github.com/precedent-dev/precedent/profiles/access/engine"
)

// gatewayPolicy is prod/name on Gateway prod/gw with one rule for sa prod/agent: every tool (tools
// nil) or the tools listed.
func gatewayPolicy(name string, tools []string) access.Policy {
	r := access.Rule{Name: "agent", Source: access.Principal{ServiceAccount: "prod/agent"}, Type: access.AllTools}
	if tools != nil {
		r.Type, r.Tools = access.InlineTools, tools
	}
	return access.Policy{Namespace: "prod", Name: name, Targets: []access.TargetRef{{Group: access.GatewayGroup, Kind: access.GatewayKind, Name: "gw"}},
		Rules: []access.Rule{r}}
}

func accessTree(linked bool, ps ...access.Policy) accessprofile.AccessTree {
	t := accessprofile.AccessTree{Policies: ps, Settings: access.DefaultSettings()}
	if linked {
		t.Topology.Link("prod/gw", "prod/be")
	}
	return t
}

// TestAccessChangeTypes: grants added (the Backend newly behind the Gateway), removed, changed (another
// decision) and moved (the same decision by another policy); sources and tools no rule names are "*".
func TestAccessChangeTypes(t *testing.T) {
	grant := func(source, tool string, ty diff.Type, before, after *diff.Value) diff.Change {
		return diff.Change{Shape: accessprofile.ShapeGrant, Kind: "AccessPolicy", At: []string{"prod/gw", "prod/be", source, tool}, Change: ty, Before: before, After: after}
	}
	allow := func(p string) *diff.Value { return &diff.Value{Decision: "allow", Policy: p} }
	deny := func(p string) *diff.Value { return &diff.Value{Decision: "deny", Policy: p} }
	const agent = "serviceaccount:prod/agent"
	g := gatewayPolicy("g", nil)
	for _, c := range []struct {
		name       string
		base, head accessprofile.AccessTree
		want       []diff.Change
	}{
		{"added: a route now sends the Gateway's traffic to the Backend", accessTree(false, g), accessTree(true, g), []diff.Change{
			grant("*", "*", diff.Added, nil, deny("prod/g")),
			grant(agent, "*", diff.Added, nil, allow("prod/g")),
		}},
		{"removed: no route left from the Gateway to the Backend", accessTree(true, g), accessTree(false, g), []diff.Change{
			grant("*", "*", diff.Removed, deny("prod/g"), nil),
			grant(agent, "*", diff.Removed, allow("prod/g"), nil),
		}},
		{"changed: every tool narrowed to one", accessTree(true, g), accessTree(true, gatewayPolicy("g", []string{"get"})), []diff.Change{
			grant(agent, "*", diff.Changed, allow("prod/g"), deny("prod/g")),
		}},
		{"moved: the same rules in a renamed policy", accessTree(true, g), accessTree(true, gatewayPolicy("g2", nil)), []diff.Change{
			grant("*", "*", diff.Moved, deny("prod/g"), deny("prod/g2")),
			grant(agent, "*", diff.Moved, allow("prod/g"), allow("prod/g2")),
		}},
		{"no change", accessTree(true, g), accessTree(true, g), nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if d := cmp.Diff(c.want, accessprofile.Access("AccessPolicy", c.base, c.head)); d != "" {
				t.Errorf("changes (-want +got):\n%s", d)
			}
		})
	}
}
