package main

import "testing"

// TestExplainEnvoyGatewayRules: explain --reach and --target --rule work for Envoy Gateway's kinds
// through the CLI (the profile's RuleExplainer), in the engine's text shape; a rule no policy
// declares and an unknown target are errors (exit 1).
func TestExplainEnvoyGatewayRules(t *testing.T) {
	const dir, egConfig = "../../config/samples/envoy-gateway", "../../config/envoy-gateway/precedentconfig.yaml"
	runCases(t, []cmdCase{
		{
			name: "--reach: a merged field names both policies on its path",
			args: []string{"explain", "-f", dir, "--config", egConfig, "--kind", "BackendTrafficPolicy", "--reach", "--rule", "rateLimit", "--policy", "shop/pay-limits"},
			want: cmdResult{stdout: "rateLimit reaches 1 path\n  route shop/cart (gateway envoy-gateway-system/eg) rule pay from shop/pay-limits\n"},
		},
		{
			name: "--target --rule: the Gateway's jwt replaced by the route's policy",
			args: []string{"explain", "-f", dir, "--config", egConfig, "--kind", "SecurityPolicy", "--target", "httproute/shop/cart", "--rule", "jwt"},
			want: cmdResult{stdout: `route shop/cart (gateway envoy-gateway-system/eg)
  jwt is not in the effective policy
  1.  gateway  envoy-gateway-system/gw-auth    replaced  shop/cart-authz
`},
		},
		{
			name: "a rule no policy declares",
			args: []string{"explain", "-f", dir, "--config", egConfig, "--kind", "SecurityPolicy", "--reach", "--rule", "nope"},
			want: cmdResult{code: 1, stderr: "error: no SecurityPolicy.gateway.envoyproxy.io declares rule \"nope\"\n"},
		},
		{
			name: "an unknown target",
			args: []string{"explain", "-f", dir, "--config", egConfig, "--kind", "SecurityPolicy", "--target", "httproute/shop/nope", "--rule", "jwt"},
			want: cmdResult{code: 1, stderr: "error: HTTPRoute shop/nope not found\n"},
		},
	})
}
