package main

import (
	"strings"
	"testing"
)

// NGINX Gateway Fabric's kinds through `validate -f` (the webhook's one review over the files): the
// Gateway's body size overridden on a route is a warning; a route policy whose route shares its
// hostname:port/path with a route it does not target is an error at its field path.
func TestNGINXGatewayFabricValidate(t *testing.T) {
	samples := "../../config/samples/nginx-gateway-fabric"
	cfg := "../../config/nginx-gateway-fabric/precedentconfig.yaml"
	runCases(t, []cmdCase{
		{
			name: "the samples: a warning only",
			args: []string{"validate", "-f", samples, "--config", cfg},
			want: cmdResult{stdout: "Warning: PRC-W263 ClientSettingsPolicy cafe/gateway-client-settings: body.maxSize is overridden on route cafe/coffee by ClientSettingsPolicy cafe/coffee-client-settings\n0 errors, 1 warning in 17 objects\n"},
		},
	})
	r := runResult("validate", "-f", samples, "-f", "testdata/ngf-overlap", "--config", cfg)
	want := `ClientSettingsPolicy cafe/coffee-client-settings: spec.targetRef: Forbidden: PRC-E260 Policy cannot be applied to target "cafe/coffee" since another Route "cafe/coffee-canary" shares a namespace/gateway-name:hostname:port/path combination with this target (cafe/gateway:cafe.example.com:80/coffee)`
	if r.code != 1 || !strings.Contains(r.stdout, want) {
		t.Errorf("exit %d, stdout:\n%s\nwant exit 1 with:\n%s", r.code, r.stdout, want)
	}
}

// The same write, two NGINX Gateway Fabric versions, two answers: a route policy whose route shares
// both its hostnames, in another order, with another route on the same path is refused on main
// (the default) and accepted on a kind line of version 2.6.
func TestNGINXGatewayFabricVersionLines(t *testing.T) {
	in := []string{"validate", "-f", "../../config/samples/nginx-gateway-fabric/topology.yaml", "-f", "testdata/ngf-versions/routes.yaml", "--config"}
	runCases(t, []cmdCase{
		{
			name: "main",
			args: append(append([]string(nil), in...), "../../config/nginx-gateway-fabric/precedentconfig.yaml"),
			want: cmdResult{code: 1,
				stdout: `ClientSettingsPolicy cafe/menu-client-settings: spec.targetRef: Forbidden: PRC-E260 Policy cannot be applied to target "cafe/menu" since another Route "cafe/menu-v2" shares a namespace/gateway-name:hostname:port/path combination with this target (cafe/gateway:cafe.example.com:80/menu)` + "\n1 error, 0 warnings in 9 objects\n",
				stderr: "error: 1 error\n"},
		},
		{
			name: "2.6",
			args: append(append([]string(nil), in...), "testdata/ngf-versions/precedentconfig-2.6.yaml"),
			want: cmdResult{stdout: "0 errors, 0 warnings in 9 objects\n"},
		},
	})
}

// A GRPCRoute target sharing a gRPC method with a GRPCRoute the policy does not target is refused
// like an HTTPRoute's (NGINX Gateway Fabric's processPolicies collects both kinds of route).
func TestNGINXGatewayFabricGRPCOverlap(t *testing.T) {
	r := runResult("validate", "-f", "../../config/samples/nginx-gateway-fabric", "-f", "testdata/ngf-grpc-overlap", "--config", "../../config/nginx-gateway-fabric/precedentconfig.yaml")
	want := `ClientSettingsPolicy cafe/orders-client-settings: spec.targetRef: Forbidden: PRC-E260 Policy cannot be applied to target "cafe/orders" since another Route "cafe/orders-canary" shares a namespace/gateway-name:hostname:port/path combination with this target (cafe/gateway:cafe.example.com:80/cafe.Orders/Place)`
	if r.code != 1 || !strings.Contains(r.stdout, want) {
		t.Errorf("exit %d, stdout:\n%s\nwant exit 1 with:\n%s", r.code, r.stdout, want)
	}
}

// explain of NGINX Gateway Fabric's kinds through the front door: --policy, --target with --rule,
// --reach with --rule, as docs/profiles/nginxgatewayfabric.md shows them.
func TestNGINXGatewayFabricExplain(t *testing.T) {
	in := []string{"-f", "../../config/samples/nginx-gateway-fabric", "--config", "../../config/nginx-gateway-fabric/precedentconfig.yaml"}
	explain := func(args ...string) []string { return append(append([]string{"explain"}, in...), args...) }
	runCases(t, []cmdCase{
		{
			name: "policy",
			args: explain("--kind", "ClientSettingsPolicy", "--policy", "cafe/gateway-client-settings"),
			want: cmdResult{stdout: `ClientSettingsPolicy cafe/gateway-client-settings
  Accepted: True (Accepted) The Policy is accepted
  Enforced: True (PartiallyEnforced) 1 of 3 fields replaced on some or all paths
  body.maxSize: partly by cafe/coffee-client-settings on 2 paths
  body.timeout: in-effect on 2 paths
  keepAlive.requests: in-effect on 2 paths
`},
		},
		{
			name: "target",
			args: explain("--kind", "ClientSettingsPolicy", "--target", "httproute/cafe/coffee", "--rule", "body.maxSize"),
			want: cmdResult{stdout: `route cafe/coffee (gateway cafe/gateway)
  body.maxSize is in effect, from cafe/coffee-client-settings
  1.  gateway  cafe/gateway-client-settings    replaced  cafe/coffee-client-settings
  2.  route    cafe/coffee-client-settings     added     
`},
		},
		{
			name: "reach",
			args: explain("--kind", "UpstreamSettingsPolicy", "--reach", "--rule", "keepAlive.connections"),
			want: cmdResult{stdout: `keepAlive.connections reaches 2 paths
  route cafe/coffee (gateway cafe/gateway) from cafe/keepalive
  route cafe/tea (gateway cafe/gateway) from cafe/keepalive
`},
		},
		{
			name: "a rule no policy sets",
			args: explain("--kind", "ObservabilityPolicy", "--reach", "--rule", "metrics"),
			want: cmdResult{code: 1, stderr: "error: no ObservabilityPolicy.gateway.nginx.org declares rule \"metrics\"\n"},
		},
	})
}
