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
			want: cmdResult{stdout: "Warning: PRC-W263 ClientSettingsPolicy cafe/gateway-client-settings: body.maxSize is overridden on route cafe/coffee by ClientSettingsPolicy cafe/coffee-client-settings\n0 errors, 1 warning in 11 objects\n"},
		},
	})
	r := runResult("validate", "-f", samples, "-f", "testdata/ngf-overlap", "--config", cfg)
	want := `ClientSettingsPolicy cafe/coffee-client-settings: spec.targetRef: Forbidden: PRC-E260 Policy cannot be applied to target "cafe/coffee" since another Route "cafe/coffee-canary" shares a namespace/gateway-name:hostname:port/path combination with this target (cafe/gateway:cafe.example.com:80/coffee)`
	if r.code != 1 || !strings.Contains(r.stdout, want) {
		t.Errorf("exit %d, stdout:\n%s\nwant exit 1 with:\n%s", r.code, r.stdout, want)
	}
}
