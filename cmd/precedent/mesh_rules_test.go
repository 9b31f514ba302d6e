package main

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	mesh "github.com/precedent-dev/precedent/profiles/mesh/engine"
)

const kumaRules = "testdata/kuma-rules"

// TestMeshRules: `precedent mesh --rules` shows the effective inbound configuration of a proxy from
// Kuma's spec.rules, for all clients or for one (--spiffe-id), on testdata/kuma-rules (after
// Kuma's docs: inbound timeouts, a namespace excluded from a broader allow, a shadow deny).
func TestMeshRules(t *testing.T) {
	id := func(path string) string { return "spiffe://default.zone-1.mesh.local/" + path }
	tests := []struct {
		name string
		args []string
		want mesh.Result
	}{
		{
			name: "timeouts of backend's inbound: the Dataplane policy over the Mesh-wide one, field by field",
			args: []string{"--kind", "MeshTimeout.kuma.io"},
			want: mesh.Result{
				Conf:    map[string]interface{}{"connectionTimeout": "10s", "idleTimeout": "1h", "http": map[string]interface{}{"requestTimeout": "30s", "streamIdleTimeout": "30m"}},
				Origins: map[string]string{"connectionTimeout": "backend-inbound", "idleTimeout": "mesh-inbound", "http.requestTimeout": "backend-inbound", "http.streamIdleTimeout": "mesh-inbound"},
			},
		},
		{
			name: "timeouts for a client the spiffeID match selects",
			args: []string{"--kind", "MeshTimeout", "--spiffe-id", id("ns/batch/sa/nightly")},
			want: mesh.Result{
				Conf:    map[string]interface{}{"connectionTimeout": "10s", "idleTimeout": "1h", "http": map[string]interface{}{"requestTimeout": "5m", "streamIdleTimeout": "30m"}},
				Origins: map[string]string{"connectionTimeout": "backend-inbound", "idleTimeout": "mesh-inbound", "http.requestTimeout": "backend-inbound", "http.streamIdleTimeout": "mesh-inbound"},
			},
		},
		{
			name: "permission for a denied namespace",
			args: []string{"--kind", "MeshTrafficPermission.kuma.io", "--spiffe-id", id("ns/malicious/sa/x")},
			want: mesh.Result{Conf: map[string]interface{}{"action": "Deny"}, Origins: map[string]string{"action": "deny-malicious-ns"}},
		},
		{
			name: "permission for the shadow-denied namespace",
			args: []string{"--kind", "MeshTrafficPermission.kuma.io", "--spiffe-id", id("ns/legacy/sa/old")},
			want: mesh.Result{Conf: map[string]interface{}{"action": "AllowWithShadowDeny"}, Origins: map[string]string{"action": "shadow-deny-legacy"}},
		},
		{
			name: "permission for another trust domain: denied by default",
			args: []string{"--kind", "MeshTrafficPermission.kuma.io", "--spiffe-id", "spiffe://other.mesh.local/ns/web/sa/web"},
			want: mesh.Result{Conf: map[string]interface{}{"action": "Deny"}, Origins: map[string]string{}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, err := runMesh(t, append([]string{"-f", kumaRules, "--proxy", "backend-1", "--rules"}, tt.args...)...)
			if err != nil || stderr != "" {
				t.Fatalf("err = %v, stderr = %q", err, stderr)
			}
			var got mesh.Result
			if err := json.Unmarshal([]byte(stdout), &got); err != nil {
				t.Fatalf("stdout is not a result: %v\n%s", err, stdout)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("precedent mesh --rules (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMeshRulesFlags: --rules takes Kuma's kinds only, and --spiffe-id needs --rules.
func TestMeshRulesFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"spiffe-id without rules", []string{"--kind", "MeshTimeout", "--outbound", "web", "--spiffe-id", "spiffe://td/x"}, "--spiffe-id and --sni go with --rules"},
		{"rules on Precedent's kinds", []string{"--kind", "MeshTimeout.policy.precedent.dev", "--rules"}, "--rules: spec.rules is Kuma's shape: use --kind MeshTimeout.kuma.io"},
		{"rules and from on a MeshTimeout", []string{"--kind", "MeshTimeout", "--rules", "--from", "web"}, "--rules with --from names one client both ways: MeshTrafficPermission only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := runMesh(t, append([]string{"-f", kumaRules, "--proxy", "backend-1"}, tt.args...)...)
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("err = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

// TestValidateRules: `precedent validate -f` with Kuma's kinds managed names an allow match that a
// deny of another policy covers on every proxy it selects (Kuma matches every deny first), as the
// webhook does: on the create of the allow policy, and on the create of the deny policy that covers
// it, each warning cut to the length the webhook sends.
func TestValidateRules(t *testing.T) {
	out, _, code := run("validate", "-f", kumaRules, "--config", "testdata/kuma-mesh/config.yaml")
	const line = "MeshTrafficPermission kong-mesh-demo/allow-malicious-batch: spec.rules[0].default.allow[0] never takes effect on any Dataplane: spec.rules[0].default.deny[0] of kuma-system/deny-malicious-ns denies all it matches, and Kuma match...\n"
	want := "Warning: PRC-W014 " + line +
		"Warning: PRC-W014 MeshTrafficPermission kuma-system/deny-malicious-ns: " + line +
		"0 errors, 2 warnings in 6 objects\n"
	if code != 0 || out != want {
		t.Errorf("exit %d, output:\n%s\nwant exit 0 and:\n%s", code, out, want)
	}
}
