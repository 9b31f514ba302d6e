package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// kube-agentic-networking's AccessPolicy proposal's example: gateway-policy-audit (T1) and gateway-policy-region (T2) on prod-gateway,
// backend-policy-admin on payment-service.
var (
	agent  = sa("prod/payment-agent")
	audit  = policy("prod/gateway-policy-audit", at(1), gwRef("prod-gateway"), inline("payments", agent, "get_payment", "create_payment", "refund"))
	region = policy("prod/gateway-policy-region", at(2), gwRef("prod-gateway"), inline("payments", agent, "get_payment", "create_payment"))
	admin  = policy("prod/backend-policy-admin", at(0), beRef("payment-service"), inline("payments", agent, "get_payment"))
)

func TestEvaluate(t *testing.T) {
	bob := sa("dev/bob")
	tests := []struct {
		name     string
		req      Request
		gateway  []Policy
		backend  []Policy
		settings Settings
		want     Decision
	}{{
		name:    "proposal example: all three policies allow, any allow suffices at each level",
		req:     Request{Source: agent, Tool: "get_payment"},
		gateway: []Policy{region, audit}, // out of order: precedence sorts them
		backend: []Policy{admin},
		want: Decision{Decision: Allow, Trace: []TraceEntry{
			{LevelGateway, "prod/gateway-policy-audit", "payments", InlineTools, "allow"},
			{LevelBackend, "prod/backend-policy-admin", "payments", InlineTools, "allow"},
		}},
	}, {
		name:     "proposal example: all three policies allow, every policy consulted under allAllow",
		req:      Request{Source: agent, Tool: "get_payment"},
		gateway:  []Policy{region, audit},
		backend:  []Policy{admin},
		settings: withCombine(AllAllow),
		want: Decision{Decision: Allow, Trace: []TraceEntry{
			{LevelGateway, "prod/gateway-policy-audit", "payments", InlineTools, "allow"},
			{LevelGateway, "prod/gateway-policy-region", "payments", InlineTools, "allow"},
			{LevelBackend, "prod/backend-policy-admin", "payments", InlineTools, "allow"},
		}},
	}, {
		name:    "proposal example: gateway allows, backend denies and names its policy",
		req:     Request{Source: agent, Tool: "create_payment"},
		gateway: []Policy{audit, region},
		backend: []Policy{admin},
		want: Decision{Decision: Deny, Level: LevelBackend, Policy: "prod/backend-policy-admin", Trace: []TraceEntry{
			{LevelGateway, "prod/gateway-policy-audit", "payments", InlineTools, "allow"},
			{LevelBackend, "prod/backend-policy-admin", "payments", InlineTools, "not listed"},
		}},
	}, {
		name:     "proposal example: the newer gateway policy denies under allAllow and the backend is not evaluated",
		req:      Request{Source: agent, Tool: "refund"},
		gateway:  []Policy{audit, region},
		backend:  []Policy{admin},
		settings: withCombine(AllAllow),
		want: Decision{Decision: Deny, Level: LevelGateway, Policy: "prod/gateway-policy-region", Trace: []TraceEntry{
			{LevelGateway, "prod/gateway-policy-audit", "payments", InlineTools, "allow"},
			{LevelGateway, "prod/gateway-policy-region", "payments", InlineTools, "not listed"},
		}},
	}, {
		name: "proposal, two providers: github and gitlab policies on one gateway: any allow suffices",
		req:  Request{Source: bob, Tool: "github"},
		gateway: []Policy{
			policy("dev/p1", at(1), gwRef("gw"), inline("bob", bob, "github")),
			policy("dev/p2", at(2), gwRef("gw"), inline("bob", bob, "gitlab")),
		},
		want: Decision{Decision: Allow, Trace: []TraceEntry{
			{LevelGateway, "dev/p1", "bob", InlineTools, "allow"},
		}},
	}, {
		name: "proposal, two providers: github and gitlab policies on one gateway: allAllow denies at the gitlab policy",
		req:  Request{Source: bob, Tool: "github"},
		gateway: []Policy{
			policy("dev/p1", at(1), gwRef("gw"), inline("bob", bob, "github")),
			policy("dev/p2", at(2), gwRef("gw"), inline("bob", bob, "gitlab")),
		},
		settings: withCombine(AllAllow),
		want: Decision{Decision: Deny, Level: LevelGateway, Policy: "dev/p2", Trace: []TraceEntry{
			{LevelGateway, "dev/p1", "bob", InlineTools, "allow"},
			{LevelGateway, "dev/p2", "bob", InlineTools, "not listed"},
		}},
	}, {
		name: "proposal, two providers: two InlineTools policies on one gateway, the later one allows",
		req:  Request{Source: bob, Tool: "gitlab"},
		gateway: []Policy{
			policy("dev/p1", at(1), gwRef("gw"), inline("bob", bob, "github")),
			policy("dev/p2", at(2), gwRef("gw"), inline("bob", bob, "gitlab")),
		},
		want: Decision{Decision: Allow, Trace: []TraceEntry{
			{LevelGateway, "dev/p1", "bob", InlineTools, "not listed"},
			{LevelGateway, "dev/p2", "bob", InlineTools, "allow"},
		}},
	}, {
		name: "proposal, two providers: two InlineTools policies on one gateway, neither allows: implicit deny names the oldest",
		req:  Request{Source: bob, Tool: "bitbucket"},
		gateway: []Policy{
			policy("dev/p2", at(1), gwRef("gw"), inline("bob", bob, "gitlab")),
			policy("dev/p1", at(1), gwRef("gw"), inline("bob", bob, "github")), // same time: p1 < p2
		},
		want: Decision{Decision: Deny, Level: LevelGateway, Policy: "dev/p1", Trace: []TraceEntry{
			{LevelGateway, "dev/p1", "bob", InlineTools, "not listed"},
			{LevelGateway, "dev/p2", "bob", InlineTools, "not listed"},
		}},
	}, {
		name:    "proposal, two providers: tools [x] at the gateway, y at the backend: y is denied at the gateway",
		req:     Request{Source: bob, Tool: "y"},
		gateway: []Policy{policy("dev/gw-pol", at(1), gwRef("gw"), inline("bob", bob, "x"))},
		backend: []Policy{policy("dev/be-pol", at(1), beRef("be"), inline("bob", bob, "y"))},
		want: Decision{Decision: Deny, Level: LevelGateway, Policy: "dev/gw-pol", Trace: []TraceEntry{
			{LevelGateway, "dev/gw-pol", "bob", InlineTools, "not listed"},
		}},
	}, {
		name:    "proposal, two providers: tools [x] at the gateway, y at the backend: x passes the gateway and is denied at the backend",
		req:     Request{Source: bob, Tool: "x"},
		gateway: []Policy{policy("dev/gw-pol", at(1), gwRef("gw"), inline("bob", bob, "x"))},
		backend: []Policy{policy("dev/be-pol", at(1), beRef("be"), inline("bob", bob, "y"))},
		want: Decision{Decision: Deny, Level: LevelBackend, Policy: "dev/be-pol", Trace: []TraceEntry{
			{LevelGateway, "dev/gw-pol", "bob", InlineTools, "allow"},
			{LevelBackend, "dev/be-pol", "bob", InlineTools, "not listed"},
		}},
	}, {
		name:    "proposal, two providers: empty tools list at the gateway allows no tool",
		req:     Request{Source: bob, Tool: "x"},
		gateway: []Policy{policy("dev/nothing", at(1), gwRef("gw"), inline("bob", bob))},
		backend: []Policy{policy("dev/be-pol", at(1), beRef("be"), inline("bob", bob, "x"))},
		want: Decision{Decision: Deny, Level: LevelGateway, Policy: "dev/nothing", Trace: []TraceEntry{
			{LevelGateway, "dev/nothing", "bob", InlineTools, "not listed"},
		}},
	}, {
		name: "proposal, two providers: ExternalAuth deny before an InlineTools allow of an older policy",
		req:  Request{Source: bob, Tool: "github", ExternalAuth: map[string]Outcome{"dev/ext": Deny}},
		gateway: []Policy{
			policy("dev/inline", at(1), gwRef("gw"), inline("bob", bob, "github")),
			policy("dev/ext", at(2), gwRef("gw"), external("authz", bob)),
		},
		want: Decision{Decision: Deny, Level: LevelGateway, Policy: "dev/ext", Trace: []TraceEntry{
			{LevelGateway, "dev/ext", "authz", ExternalAuth, "deny"},
		}},
	}, {
		name: "ExternalAuth without a given outcome is assumed to allow, then the allow rules decide",
		req:  Request{Source: bob, Tool: "github"},
		gateway: []Policy{
			policy("dev/inline", at(1), gwRef("gw"), inline("bob", bob, "github")),
			policy("dev/ext", at(2), gwRef("gw"), external("authz", bob)),
		},
		want: Decision{Decision: Allow, Trace: []TraceEntry{
			{LevelGateway, "dev/ext", "authz", ExternalAuth, "assumed"},
			{LevelGateway, "dev/inline", "bob", InlineTools, "allow"},
		}},
	}, {
		name:    "a level with only ExternalAuth rules that allow passes",
		req:     Request{Source: bob, Tool: "anything", ExternalAuth: map[string]Outcome{"dev/ext": Allow}},
		gateway: []Policy{policy("dev/ext", at(1), gwRef("gw"), external("authz", bob))},
		backend: []Policy{policy("dev/be", at(1), beRef("be"), anyTool("bob", bob))},
		want: Decision{Decision: Allow, Trace: []TraceEntry{
			{LevelGateway, "dev/ext", "authz", ExternalAuth, "allow"},
			{LevelBackend, "dev/be", "bob", AllTools, "allow"},
		}},
	}, {
		name:    "ExternalAuth of another source is not consulted",
		req:     Request{Source: bob, Tool: "x", ExternalAuth: map[string]Outcome{"dev/ext": Deny}},
		gateway: []Policy{policy("dev/ext", at(1), gwRef("gw"), external("authz", sa("dev/alice")))},
		want:    Decision{Decision: Allow, Trace: []TraceEntry{}},
	}, {
		name:    "no policy at the gateway level: the backend decides",
		req:     Request{Source: bob, Tool: "x"},
		backend: []Policy{policy("dev/be", at(1), beRef("be"), inline("bob", bob, "x"))},
		want: Decision{Decision: Allow, Trace: []TraceEntry{
			{LevelBackend, "dev/be", "bob", InlineTools, "allow"},
		}},
	}, {
		name: "no policy at either level allows",
		req:  Request{Source: bob, Tool: "x"},
		want: Decision{Decision: Allow, Trace: []TraceEntry{}},
	}, {
		name:    "allow rules only for another source deny this one implicitly",
		req:     Request{Source: bob, Tool: "x"},
		gateway: []Policy{policy("dev/alice-only", at(1), gwRef("gw"), anyTool("alice", sa("dev/alice")))},
		want:    Decision{Decision: Deny, Level: LevelGateway, Policy: "dev/alice-only", Trace: []TraceEntry{}},
	}, {
		name:    "omitted authorization allows every tool",
		req:     Request{Source: bob, Tool: "rm-rf"},
		gateway: []Policy{policy("dev/all", at(1), gwRef("gw"), anyTool("bob", bob))},
		want: Decision{Decision: Allow, Trace: []TraceEntry{
			{LevelGateway, "dev/all", "bob", AllTools, "allow"},
		}},
	}, {
		name: "SPIFFE source matches the SPIFFE ID only",
		req:  Request{Source: spiffe("spiffe://example.org/ns/dev/sa/bob"), Tool: "x"},
		gateway: []Policy{policy("dev/mesh", at(1), gwRef("gw"),
			inline("sa", bob, "x"),
			inline("id", spiffe("spiffe://example.org/ns/dev/sa/bob"), "x"))},
		want: Decision{Decision: Allow, Trace: []TraceEntry{
			{LevelGateway, "dev/mesh", "id", InlineTools, "allow"},
		}},
	}, {
		name: "allAllow: a policy with only ExternalAuth rules has no say on tools",
		req:  Request{Source: bob, Tool: "x"},
		gateway: []Policy{
			policy("dev/ext", at(1), gwRef("gw"), external("authz", bob)),
			policy("dev/inline", at(2), gwRef("gw"), inline("bob", bob, "x")),
		},
		settings: withCombine(AllAllow),
		want: Decision{Decision: Allow, Trace: []TraceEntry{
			{LevelGateway, "dev/ext", "authz", ExternalAuth, "assumed"},
			{LevelGateway, "dev/inline", "bob", InlineTools, "allow"},
		}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.settings
			if s == (Settings{}) {
				s = DefaultSettings()
			}
			got := Evaluate(tt.req, tt.gateway, tt.backend, s)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Evaluate() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEvaluateParsed evaluates policies decoded from YAML: a ServiceAccount source without a
// namespace takes the policy's.
func TestEvaluateParsed(t *testing.T) {
	p, errs := Parse(decodeYAML(t, `
apiVersion: policy.precedent.dev/v1alpha1
kind: AccessPolicy
metadata: {name: shop-agents, namespace: shop}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]
  rules:
  - name: agent
    source: {type: ServiceAccount, serviceAccount: {name: agent}}
    authorization: {type: InlineTools, tools: [search]}
`), DefaultSettings())
	if len(errs) > 0 {
		t.Fatalf("Parse: %v", errs)
	}
	tests := []struct {
		name   string
		source Principal
		want   Decision
	}{{
		name:   "ServiceAccount in the policy's namespace matches",
		source: sa("shop/agent"),
		want: Decision{Decision: Allow, Trace: []TraceEntry{
			{LevelGateway, "shop/shop-agents", "agent", InlineTools, "allow"},
		}},
	}, {
		name:   "same name in another namespace does not match",
		source: sa("other/agent"),
		want:   Decision{Decision: Deny, Level: LevelGateway, Policy: "shop/shop-agents", Trace: []TraceEntry{}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Evaluate(Request{Source: tt.source, Tool: "search"}, []Policy{p}, nil, DefaultSettings())
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Evaluate() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEvaluateDoesNotReorderInput(t *testing.T) {
	in := []Policy{region, audit}
	Evaluate(Request{Source: agent, Tool: "x"}, in, nil, DefaultSettings())
	if in[0].Name != "gateway-policy-region" {
		t.Errorf("Evaluate reordered its input: %s first", in[0].Name)
	}
}

func TestParsePrincipal(t *testing.T) {
	tests := []struct {
		in      string
		want    Principal
		wantErr bool
	}{
		{in: "serviceaccount:shop/agent", want: sa("shop/agent")},
		{in: "spiffe:spiffe://example.org/ns/shop/sa/agent", want: spiffe("spiffe://example.org/ns/shop/sa/agent")},
		{in: "spiffe://example.org/x", want: spiffe("spiffe://example.org/x")},
		{in: "serviceaccount:agent", wantErr: true},
		{in: "spiffe:example.org/x", wantErr: true},
		{in: "user:bob", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParsePrincipal(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParsePrincipal(%q) error = %v, want error %v", tt.in, err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParsePrincipal(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}
