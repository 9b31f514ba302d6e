package main

import "testing"

// TestKgatewayExplain: explain --target and --reach of kgateway's TrafficPolicy on the sample's
// delegation, where the parent route prefers its own rateLimit.
func TestKgatewayExplain(t *testing.T) {
	in := []string{"-f", "../../config/samples/kgateway", "--config", "../../config/kgateway/precedentconfig.yaml", "--kind", "TrafficPolicy.gateway.kgateway.dev"}
	explain := func(args ...string) []string { return append(append([]string{"explain"}, in...), args...) }
	runCases(t, []cmdCase{
		{
			name: "target",
			args: explain("--target", "httproute/store/cart", "--rule", "rateLimit"),
			want: cmdResult{stdout: `route store/cart (gateway infra/gw) rule checkout
  rateLimit is in effect, from infra/root-limits
  1.  route  infra/root-limits    added     
  2.  route  store/cart-limits    replaced  infra/root-limits
`},
		},
		{
			name: "reach",
			args: explain("--reach", "--rule", "cors"),
			want: cmdResult{stdout: `cors reaches 2 paths
  route store/cart (gateway infra/gw) rule checkout from infra/root-limits
  route team-a/team-a (gateway infra/gw) rule rule-0 from infra/root-limits
`},
		},
		{
			name: "a rule no policy sets",
			args: explain("--reach", "--rule", "extAuth"),
			want: cmdResult{code: 1, stderr: "error: no TrafficPolicy.gateway.kgateway.dev declares rule \"extAuth\"\n"},
		},
	})
}
