package main

import "testing"

// TestListenerSetEffective: a policy on a ListenerSet reaches the routes attached through its
// listeners (an HTTPRoute by sectionName, a TCPRoute by port), and not the route attached to the
// Gateway's own listener; a ListenerSet listener is shown as such.
func TestListenerSetEffective(t *testing.T) {
	const dir, config = "testdata/listenerset", "testdata/listenerset-config/config.yaml"
	const egConfig = "../../config/envoy-gateway/precedentconfig.yaml"
	runCases(t, []cmdCase{
		{
			// With ListenerSet among the kind's targetKinds: else the policy on it is not accepted,
			// and effective leaves it out (the case after the next).
			name: "effective: the ListenerSet's defaults reach the routes attached through it",
			args: []string{"effective", "-f", dir, "--kind", "RateLimitPolicy", "--config", config},
			want: cmdResult{stdout: `GATEWAY   LISTENER                     ROUTE         RULE  RULE ID   FROM
infra/gw  ListenerSet shop/team#store  shop/cart     -     per-team  shop/team-limits
infra/gw  ListenerSet shop/team#store  shop/cart     -     per-user  shop/cart-limits
infra/gw  -                            shop/landing  -     per-ip    shop/landing-limits
infra/gw  ListenerSet shop/team#db     shop/pg       -     per-team  shop/team-limits
`},
		},
		{
			name: "effective --target listenerset lists the paths beneath it only",
			args: []string{"effective", "-f", dir, "--kind", "RateLimitPolicy", "--target", "listenerset/shop/team", "--config", config},
			want: cmdResult{stdout: `GATEWAY   LISTENER                     ROUTE      RULE  RULE ID   FROM
infra/gw  ListenerSet shop/team#store  shop/cart  -     per-team  shop/team-limits
infra/gw  ListenerSet shop/team#store  shop/cart  -     per-user  shop/cart-limits
infra/gw  ListenerSet shop/team#db     shop/pg    -     per-team  shop/team-limits
`},
		},
		{
			name: "effective: ListenerSet is not a default target kind: the policy on it is left out",
			args: []string{"effective", "-f", dir, "--kind", "RateLimitPolicy", "--target", "listenerset/shop/team"},
			want: cmdResult{stdout: `GATEWAY   LISTENER                     ROUTE      RULE  RULE ID   FROM
infra/gw  ListenerSet shop/team#store  shop/cart  -     per-user  shop/cart-limits
`,
				stderr: "Note: PRC-N300 RateLimitPolicy shop/team-limits: left out, not accepted: Invalid: Policy is invalid: spec.targetRef.kind: Unsupported value: \"ListenerSet\": supported values: \"Gateway\", \"HTTPRoute\", \"GRPCRoute\"\n"},
		},
		{
			name: "validate: ListenerSet is not a default target kind",
			args: []string{"validate", "-f", dir},
			want: cmdResult{code: 1, stdout: "RateLimitPolicy shop/team-limits: spec.targetRef.kind: Unsupported value: \"ListenerSet\": PRC-E005 supported values: \"Gateway\", \"HTTPRoute\", \"GRPCRoute\"\n" +
				"1 error, 0 warnings in 8 objects\n",
				stderr: "error: 1 error\n"},
		},
		{
			name: "validate: a kind configured with ListenerSet among its targetKinds accepts it",
			args: []string{"validate", "-f", dir, "--config", config},
			want: cmdResult{stdout: "Note: PRC-N003 RateLimitPolicy shop/team-limits: this write changes the effective RateLimitPolicy of 2 routes\n" + "0 errors, 0 warnings, 1 note in 8 objects\n"},
		},
		{
			name: "Envoy Gateway: a BackendTrafficPolicy on the ListenerSet reaches its route",
			args: []string{"effective", "-f", "testdata/envoy-listenerset", "--config", egConfig, "--kind", "BackendTrafficPolicy"},
			want: cmdResult{stdout: `GATEWAY   LISTENER                     ROUTE      RULE  RULE ID  FROM
infra/eg  ListenerSet shop/team#store  shop/cart  -     timeout  shop/team-traffic
`},
		},
		{
			name: "Envoy Gateway: its write is reviewed over the route attached through the ListenerSet",
			args: []string{"validate", "-f", "testdata/envoy-listenerset", "--config", egConfig},
			want: cmdResult{stdout: "Note: PRC-N004 BackendTrafficPolicy shop/team-traffic: changes the effective BackendTrafficPolicy of 1 place: route shop/cart\n" + "0 errors, 0 warnings, 1 note in 4 objects\n"},
		},
	})
}
