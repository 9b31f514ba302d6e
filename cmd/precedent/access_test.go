package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	access "github.com/precedent-dev/precedent/profiles/access/engine"
)

const samples = "../../config/samples/access"

// runAccess runs `precedent access`; a denial (exit 1 with the decision printed, as kubectl auth
// can-i exits "no") is returned as deny, not as an error.
func runAccess(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	stdout, stderr, deny, err := runAccessCode(t, args...)
	if deny && stdout == "" {
		t.Errorf("a denial printed no decision")
	}
	return stdout, stderr, err
}

// runAccessCode runs `precedent access` and says apart a denial (exit 1, no error text).
func runAccessCode(t *testing.T, args ...string) (stdout, stderr string, deny bool, err error) {
	t.Helper()
	stdout, stderr, err = runAccessRaw(t, args...)
	var ee *exitError
	if errors.As(err, &ee) && ee.Code == 1 && ee.Err == nil {
		return stdout, stderr, true, nil
	}
	return stdout, stderr, false, err
}

func runAccessRaw(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	cmd := newRootCmd() // the profile's simulator, as the binary wires it
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(append([]string{"access"}, args...))
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err = cmd.Execute()
	return out.String(), errOut.String(), err
}

func TestAccessSamples(t *testing.T) {
	base := []string{"-f", samples, "--gateway", "prod/prod-gateway", "--backend", "prod/payment-service", "-o", "json"}
	tests := []struct {
		name string
		args []string
		want access.Decision
	}{{
		name: "payment agent allowed by all three policies, ExternalAuth assumed",
		args: []string{"--source", "serviceaccount:prod/payment-agent", "--tool", "get_payment"},
		want: access.Decision{Decision: "allow", Trace: []access.TraceEntry{
			{Level: "gateway", Policy: "prod/gateway-policy-audit", Rule: "audit-payment-agent", Type: "ExternalAuth", Result: "assumed"},
			{Level: "gateway", Policy: "prod/gateway-policy-region", Rule: "payment-agent", Type: "InlineTools", Result: "allow"},
			{Level: "backend", Policy: "prod/backend-policy-admin", Rule: "payment-agent", Type: "InlineTools", Result: "allow"},
		}},
	}, {
		name: "ExternalAuth deny at the gateway stops evaluation",
		args: []string{"--source", "serviceaccount:prod/payment-agent", "--tool", "get_payment", "--external-auth", "prod/gateway-policy-audit=deny"},
		want: access.Decision{Decision: "deny", Level: "gateway", Policy: "prod/gateway-policy-audit", Trace: []access.TraceEntry{
			{Level: "gateway", Policy: "prod/gateway-policy-audit", Rule: "audit-payment-agent", Type: "ExternalAuth", Result: "deny"},
		}},
	}, {
		name: "refund granted by the backend is denied at the gateway",
		args: []string{"--source", "serviceaccount:prod/payment-agent", "--tool", "refund_payment", "--external-auth", "prod/gateway-policy-audit=allow"},
		want: access.Decision{Decision: "deny", Level: "gateway", Policy: "prod/gateway-policy-region", Trace: []access.TraceEntry{
			{Level: "gateway", Policy: "prod/gateway-policy-audit", Rule: "audit-payment-agent", Type: "ExternalAuth", Result: "allow"},
			{Level: "gateway", Policy: "prod/gateway-policy-region", Rule: "payment-agent", Type: "InlineTools", Result: "not listed"},
		}},
	}, {
		name: "SPIFFE source allowed by the gateway, denied at the backend",
		args: []string{"--source", "spiffe:spiffe://eu.example.org/ns/agents/sa/planner", "--tool", "get_payment", "--combine", "allAllow"},
		want: access.Decision{Decision: "deny", Level: "backend", Policy: "prod/backend-policy-admin", Trace: []access.TraceEntry{
			{Level: "gateway", Policy: "prod/gateway-policy-region", Rule: "eu-planner", Type: "InlineTools", Result: "allow"},
			{Level: "backend", Policy: "prod/backend-policy-admin", Rule: "eu-planner", Type: "InlineTools", Result: "not listed"},
		}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, deny, err := runAccessCode(t, append(base, tt.args...)...)
			if err != nil {
				t.Fatalf("access: %v (stderr %q)", err, stderr)
			}
			if deny != (tt.want.Decision == "deny") {
				t.Errorf("exit status 1 (denied) = %v, want it for a denial only", deny)
			}
			if stderr != "" {
				t.Errorf("stderr = %q, want none", stderr)
			}
			var got access.Decision
			if err := json.Unmarshal([]byte(stdout), &got); err != nil {
				t.Fatalf("output is not JSON: %v\n%s", err, stdout)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("decision mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAccessOutputShape(t *testing.T) {
	stdout, _, err := runAccess(t, "-f", samples, "--gateway", "prod/prod-gateway", "--backend", "prod/payment-service",
		"--source", "serviceaccount:prod/payments-admin", "--tool", "refund_payment", "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "decision": "deny",
  "level": "gateway",
  "policy": "prod/gateway-policy-region",
  "trace": []
}
`
	if diff := cmp.Diff(want, stdout); diff != "" {
		t.Errorf("output mismatch (-want +got):\n%s", diff)
	}
}

func TestAccessErrors(t *testing.T) {
	dir := t.TempDir()
	invalid := filepath.Join(dir, "invalid.yaml")
	if err := os.WriteFile(invalid, []byte(`apiVersion: policy.precedent.dev/v1alpha1
kind: AccessPolicy
metadata: {name: bad, namespace: prod}
spec:
  targetRefs:
  - {group: gateway.networking.k8s.io, kind: Gateway, name: prod-gateway}
  - {group: agentic.prototype.x-k8s.io, kind: XBackend, name: payment-service}
  rules:
  - {name: a, source: {type: ServiceAccount, serviceAccount: {name: a}}}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	request := []string{"--gateway", "prod/prod-gateway", "--backend", "prod/payment-service", "--source", "serviceaccount:prod/a", "--tool", "x"}
	tests := []struct {
		name       string
		args       []string
		wantCode   int // 0: a plain error (usage), exit 2 in main
		wantErr    string
		wantStderr string
	}{{
		name:     "unreadable file",
		args:     append([]string{"-f", filepath.Join(dir, "missing.yaml")}, request...),
		wantCode: 2,
		wantErr:  "the input cannot be read: " + filepath.Join(dir, "missing.yaml") + ": no such file or directory",
	}, {
		name:       "invalid policy",
		args:       append([]string{"-f", invalid}, request...),
		wantCode:   1,
		wantStderr: `AccessPolicy prod/bad: spec.targetRefs[1].kind: Invalid value: "XBackend": all targetRefs must have the same kind` + "\n",
	}, {
		name:    "bad source",
		args:    []string{"-f", samples, "--gateway", "prod/gw", "--backend", "prod/be", "--source", "user:bob", "--tool", "x"},
		wantErr: `source "user:bob": use serviceaccount:NAMESPACE/NAME or spiffe:spiffe://TRUST-DOMAIN/PATH`,
	}, {
		name:    "bad external auth outcome",
		args:    append([]string{"-f", samples, "--external-auth", "prod/p=maybe"}, request...),
		wantErr: `--external-auth "prod/p=maybe": the outcome must be allow or deny`,
	}, {
		name:    "bad combine",
		args:    append([]string{"-f", samples, "--combine", "oneAllow"}, request...),
		wantErr: `access combine "oneAllow" is not supported: use "anyAllow" or "allAllow"`,
	}, {
		name:    "unsupported output",
		args:    append([]string{"-f", samples, "-o", "yaml"}, request...),
		wantErr: `output format "yaml" is not supported: use -o json`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, err := runAccessRaw(t, tt.args...)
			if err == nil {
				t.Fatal("access succeeded, want an error")
			}
			code := 0
			var ee *exitError
			if errors.As(err, &ee) {
				code = ee.Code
			}
			if code != tt.wantCode {
				t.Errorf("exit code = %d, want %d (%v)", code, tt.wantCode, err)
			}
			if tt.wantErr != "" && err.Error() != tt.wantErr {
				t.Errorf("error = %q, want %q", err.Error(), tt.wantErr)
			}
			if stderr != tt.wantStderr {
				t.Errorf("stderr = %q, want %q", stderr, tt.wantStderr)
			}
		})
	}
}
