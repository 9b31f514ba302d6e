package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestProjectWrite(t *testing.T) {
	agent := sa("shop/agent")
	var topo Topology
	topo.Link("shop/gw", "shop/mcp")
	topo.Link("shop/gw", "shop/mcp2")
	topo.Link("shop/other-gw", "shop/mcp")
	bePol := policy("shop/backend-pol", at(5), beRef("mcp"), inline("agent", agent, "x", "y"))
	tests := []struct {
		name     string
		written  Policy
		others   []Policy
		settings Settings
		limit    int
		want     []string
	}{{
		name:    "gateway write makes a backend grant unreachable",
		written: policy("shop/gw-pol", at(9), gwRef("gw"), inline("agent", agent, "x")),
		others:  []Policy{bePol},
		want:    []string{"PRC-W013 tool `y` granted to sa shop/agent by shop/backend-pol is denied at gateway shop/gw: no gateway rule allows it"},
	}, {
		name:    "gateway write that lets every granted tool through",
		written: policy("shop/gw-pol", at(9), gwRef("gw"), inline("agent", agent, "x", "y", "z")),
		others:  []Policy{bePol},
	}, {
		name:    "gateway write with only ExternalAuth rules makes nothing unreachable",
		written: policy("shop/gw-pol", at(9), gwRef("gw"), external("authz", agent)),
		others:  []Policy{bePol},
	}, {
		name:    "grant already unreachable before the write is not repeated",
		written: policy("shop/gw-pol", at(9), gwRef("gw"), inline("agent", agent, "x")),
		others:  []Policy{bePol, policy("shop/older", at(1), gwRef("gw"), inline("agent", agent, "x"))},
	}, {
		name:    "update that removes a tool from the gateway policy",
		written: policy("shop/gw-pol", at(1), gwRef("gw"), inline("agent", agent, "x")),
		others:  []Policy{bePol, policy("shop/gw-pol", at(1), gwRef("gw"), inline("agent", agent, "x", "y"))},
		want:    []string{"PRC-W013 tool `y` granted to sa shop/agent by shop/backend-pol is denied at gateway shop/gw: no gateway rule allows it"},
	}, {
		name:    "update that moves the policy to another gateway frees the old one",
		written: policy("shop/gw-pol", at(1), gwRef("other-gw"), inline("agent", agent, "x", "y")),
		others:  []Policy{bePol, policy("shop/gw-pol", at(1), gwRef("gw"), inline("agent", agent))},
	}, {
		name:    "gateway write with an empty tools list denies every granted tool",
		written: policy("shop/gw-pol", at(9), gwRef("gw"), inline("agent", agent)),
		others:  []Policy{bePol},
		want: []string{
			"PRC-W013 tool `x` granted to sa shop/agent by shop/backend-pol is denied at gateway shop/gw: no gateway rule allows it",
			"PRC-W013 tool `y` granted to sa shop/agent by shop/backend-pol is denied at gateway shop/gw: no gateway rule allows it",
		},
	}, {
		name:    "all-tools grant made unreachable",
		written: policy("shop/gw-pol", at(9), gwRef("gw"), anyTool("someone-else", sa("shop/other"))),
		others:  []Policy{policy("shop/open", at(1), beRef("mcp2"), anyTool("agent", agent))},
		want:    []string{"PRC-W013 all tools granted to sa shop/agent by shop/open are denied at gateway shop/gw: no gateway rule allows any tool to that source"},
	}, {
		name:    "all-tools grant reachable through one listed tool",
		written: policy("shop/gw-pol", at(9), gwRef("gw"), inline("agent", agent, "x")),
		others:  []Policy{policy("shop/open", at(1), beRef("mcp2"), anyTool("agent", agent))},
	}, {
		name:     "allAllow names the gateway policy that does not allow",
		written:  policy("shop/gw-pol", at(9), gwRef("gw"), inline("agent", agent, "x")),
		others:   []Policy{bePol, policy("shop/older", at(1), gwRef("gw"), inline("agent", agent, "x", "y"))},
		settings: withCombine(AllAllow),
		want:     []string{"PRC-W013 tool `y` granted to sa shop/agent by shop/backend-pol is denied at gateway shop/gw: gateway policy shop/gw-pol does not allow it"},
	}, {
		name:    "SPIFFE grant made unreachable",
		written: policy("shop/gw-pol", at(9), gwRef("gw"), inline("agent", agent, "x")),
		others:  []Policy{policy("shop/mesh", at(1), beRef("mcp"), inline("id", spiffe("spiffe://example.org/agent"), "x"))},
		want:    []string{"PRC-W013 tool `x` granted to spiffe://example.org/agent by shop/mesh is denied at gateway shop/gw: no gateway rule allows it"},
	}, {
		name:    "a backend policy on two backends behind the gateway is warned about once",
		written: policy("shop/gw-pol", at(9), gwRef("gw"), inline("agent", agent, "x")),
		others: []Policy{{Namespace: "shop", Name: "both", Targets: []TargetRef{beRef("mcp"), beRef("mcp2")},
			Rules: []Rule{inline("agent", agent, "y")}}},
		want: []string{"PRC-W013 tool `y` granted to sa shop/agent by shop/both is denied at gateway shop/gw: no gateway rule allows it"},
	}, {
		name:    "backend write whose grant a gateway in front already denies",
		written: bePol,
		others:  []Policy{policy("shop/gw-pol", at(1), gwRef("gw"), inline("agent", agent, "x"))},
		want:    []string{"PRC-W013 tool `y` granted to sa shop/agent by shop/backend-pol is denied at gateway shop/gw: no gateway rule allows it"},
	}, {
		name:    "backend write behind two gateways, one denies",
		written: bePol,
		others: []Policy{
			policy("shop/gw-pol", at(1), gwRef("gw"), inline("agent", agent, "x", "y")),
			policy("shop/other-pol", at(1), gwRef("other-gw"), inline("agent", agent)),
		},
		want: []string{
			"PRC-W013 tool `x` granted to sa shop/agent by shop/backend-pol is denied at gateway shop/other-gw: no gateway rule allows it",
			"PRC-W013 tool `y` granted to sa shop/agent by shop/backend-pol is denied at gateway shop/other-gw: no gateway rule allows it",
		},
	}, {
		name:    "backend write not behind any gateway",
		written: policy("shop/lonely", at(1), beRef("nowhere"), inline("agent", agent, "x")),
		others:  []Policy{policy("shop/gw-pol", at(1), gwRef("gw"), inline("agent", agent))},
	}, {
		name:     "allAllow: a backend write that leaves out a tool another backend policy grants names that policy",
		written:  policy("shop/new-be", at(9), beRef("mcp"), inline("agent", agent, "x")),
		others:   []Policy{bePol, policy("shop/gw-pol", at(1), gwRef("gw"), inline("agent", agent, "x", "y"))},
		settings: withCombine(AllAllow),
		want:     []string{"PRC-W013 tool `y` granted to sa shop/agent by shop/backend-pol is no longer granted at backend shop/mcp: backend policy shop/new-be does not allow it"},
	}, {
		name:    "anyAllow: a second backend policy revokes nothing another grants",
		written: policy("shop/new-be", at(9), beRef("mcp"), inline("agent", agent, "x")),
		others:  []Policy{bePol, policy("shop/gw-pol", at(1), gwRef("gw"), inline("agent", agent, "x", "y"))},
	}, {
		name:     "allAllow: an update of a backend policy that already left the tool out warns nothing new",
		written:  policy("shop/new-be", at(9), beRef("mcp"), inline("agent", agent, "x")),
		others:   []Policy{bePol, policy("shop/new-be", at(9), beRef("mcp"), inline("agent", agent)), policy("shop/gw-pol", at(1), gwRef("gw"), inline("agent", agent, "x", "y"))},
		settings: withCombine(AllAllow),
	}, {
		name:    "warnings are capped and counted",
		written: policy("shop/gw-pol", at(9), gwRef("gw"), inline("agent", agent)),
		others:  []Policy{policy("shop/many", at(1), beRef("mcp"), inline("agent", agent, "t1", "t2", "t3", "t4", "t5"))},
		limit:   3,
		want: []string{
			"PRC-W013 tool `t1` granted to sa shop/agent by shop/many is denied at gateway shop/gw: no gateway rule allows it",
			"PRC-W013 tool `t2` granted to sa shop/agent by shop/many is denied at gateway shop/gw: no gateway rule allows it",
			"PRC-W013 and 3 more unreachable grants",
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.settings
			if s == (Settings{}) {
				s = DefaultSettings()
			}
			got := ProjectWrite(tt.written, tt.others, &topo, s, tt.limit)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ProjectWrite() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestProjectWriteGenerated(t *testing.T) {
	gw, be, topo := generate(1, 100)
	// Under allAllow, a new gateway policy that allows agents-0 only "search" makes unreachable the
	// 100 `delete` grants to ops/admin (one per backend policy) and the 2 `tool-0` grants to agents-0
	// that gw-policy-000 let through: 102 warnings, 9 shown and 93 counted.
	written := policy("gw/lockdown", at(1000), gwRef("edge"), inline("agents", sa("agents-0/agent"), "search"))
	got := ProjectWrite(written, append(gw, be...), &topo, withCombine(AllAllow), 0)
	if len(got) != DefaultWarningLimit {
		t.Fatalf("got %d warnings, want %d: %q", len(got), DefaultWarningLimit, got)
	}
	if want := "PRC-W013 and 93 more unreachable grants"; got[len(got)-1] != want {
		t.Errorf("last warning = %q, want %q", got[len(got)-1], want)
	}
}

func TestProjectDelete(t *testing.T) {
	agent := sa("shop/agent")
	var topo Topology
	topo.Link("shop/gw", "shop/mcp")
	topo.Link("shop/gw", "shop/mcp2")
	bePol := policy("shop/backend-pol", at(5), beRef("mcp"), inline("agent", agent, "x", "y"))
	gwPol := policy("shop/gw-pol", at(9), gwRef("gw"), inline("agent", agent, "x", "y"))
	tests := []struct {
		name    string
		deleted Policy
		others  []Policy
		want    []string
	}{{
		name:    "the only gateway policy with allow rules: the gateway opens",
		deleted: gwPol,
		others:  []Policy{bePol, gwPol},
		want:    []string{"PRC-W012 removing this policy leaves gateway shop/gw without allow rules: every source may call every tool of the 2 backends behind it"},
	}, {
		name:    "a gateway policy whose tool no other gateway policy allows",
		deleted: gwPol,
		others:  []Policy{bePol, policy("shop/older", at(1), gwRef("gw"), inline("agent", agent, "x"))},
		want:    []string{"PRC-W013 tool `y` granted to sa shop/agent by shop/backend-pol is denied at gateway shop/gw: no gateway rule allows it"},
	}, {
		name:    "the only backend policy with allow rules: the backend opens",
		deleted: bePol,
		others:  []Policy{bePol, gwPol},
		want:    []string{"PRC-W012 removing this policy leaves backend shop/mcp without allow rules: every source that passes the gateways in front of it may call every tool"},
	}, {
		name:    "a backend policy whose tool no other backend policy grants",
		deleted: bePol,
		others:  []Policy{policy("shop/also", at(7), beRef("mcp"), inline("agent", agent, "x"))},
		want:    []string{"PRC-W013 tool `y` granted to sa shop/agent by shop/backend-pol is no longer granted at backend shop/mcp: no backend rule allows it"},
	}, {
		name:    "a backend policy whose grants another one repeats",
		deleted: bePol,
		others:  []Policy{policy("shop/also", at(7), beRef("mcp"), inline("agent", agent, "x", "y"))},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ProjectDelete(tc.deleted, tc.others, &topo, DefaultSettings(), 0)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}
