package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	mesh "github.com/precedent-dev/precedent/profiles/mesh/engine"
)

const meshSamples = "../../config/samples/mesh"

func runMesh(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	cmd := newRootCmd() // the profile's simulator, as the binary wires it
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(append([]string{"mesh"}, args...))
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err = cmd.Execute()
	return out.String(), errOut.String(), err
}

// The MADR's worked examples (Kuma's "New Policy Matching") through the CLI, on config/samples/mesh. The samples write
// 00-base-timeouts with idleTimeout where the MADR's policy says streamIdleTimeout: its merged
// listings say idleTimeout.
func TestMeshSamples(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want mesh.Result
	}{
		{
			name: "timeouts of web for backend",
			args: []string{"--kind", "MeshTimeout", "--proxy", "web-v1", "--outbound", "backend"},
			want: mesh.Result{
				Conf:    map[string]interface{}{"connectTimeout": "5s", "http": map[string]interface{}{"requestTimeout": "15s", "idleTimeout": "0s"}},
				Origins: map[string]string{"connectTimeout": "web-timeouts", "http.requestTimeout": "web-timeouts", "http.idleTimeout": "01-consume-backend-timeouts"},
			},
		},
		{
			name: "timeouts of web for payments",
			args: []string{"--kind", "MeshTimeout", "--proxy", "mesh-1/web-v1", "--outbound", "payments"},
			want: mesh.Result{
				Conf:    map[string]interface{}{"connectTimeout": "5s", "http": map[string]interface{}{"requestTimeout": "5s", "idleTimeout": "1h"}},
				Origins: map[string]string{"connectTimeout": "web-timeouts", "http.requestTimeout": "00-base-timeouts", "http.idleTimeout": "00-base-timeouts"},
			},
		},
		{
			name: "permission of backend for web v1",
			args: []string{"--kind", "MeshTrafficPermission", "--proxy", "backend-1", "--from", "web,version=v1"},
			want: mesh.Result{Conf: map[string]interface{}{"action": "DENY"}, Origins: map[string]string{"action": "backend-permissions"}},
		},
		{
			name: "permission of backend for infra-monitoring",
			args: []string{"--kind", "MeshTrafficPermission", "--proxy", "backend-1", "--from", "infra-monitoring"},
			want: mesh.Result{Conf: map[string]interface{}{"action": "ALLOW"}, Origins: map[string]string{"action": "backend-permissions"}},
		},
		{
			name: "permission of backend for infra-logger",
			args: []string{"--kind", "meshtrafficpermissions", "--proxy", "backend-1", "--from", "infra-logger,kuma.io/zone=us-east"},
			want: mesh.Result{Conf: map[string]interface{}{"action": "ALLOW"}, Origins: map[string]string{"action": "backend-permissions"}},
		},
		{
			name: "permission of web for backend",
			args: []string{"--kind", "MeshTrafficPermission", "--proxy", "web-v2", "--from", "backend"},
			want: mesh.Result{Conf: map[string]interface{}{"action": "DENY"}, Origins: map[string]string{"action": "allow-only-infra"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, err := runMesh(t, append([]string{"-f", meshSamples, "-o", "json"}, tt.args...)...)
			if err != nil || stderr != "" {
				t.Fatalf("err = %v, stderr = %q", err, stderr)
			}
			var got mesh.Result
			if err := json.Unmarshal([]byte(stdout), &got); err != nil {
				t.Fatalf("stdout is not a result: %v\n%s", err, stdout)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("precedent mesh (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMeshErrors(t *testing.T) {
	dir := t.TempDir()
	invalid := filepath.Join(dir, "invalid.yaml")
	if err := os.WriteFile(invalid, []byte(`apiVersion: policy.precedent.dev/v1alpha1
kind: MeshTimeout
metadata: {name: bad, namespace: mesh-1}
spec:
  targetRef: {kind: Mesh}
  to: [{targetRef: {kind: Proxy, name: web-v1}, connectTimeout: 1s}]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(dir, "broken.yaml")
	if err := os.WriteFile(broken, []byte("kind: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		args       []string
		wantCode   int // 0: a plain error (exit 2 from main), -1: no error
		wantErr    string
		wantStderr string
	}{
		{
			name:     "unknown proxy",
			args:     []string{"-f", meshSamples, "--kind", "MeshTimeout", "--proxy", "nope", "--outbound", "backend"},
			wantCode: 1,
			wantErr:  `proxy "nope" not found: no Dataplane of that name in the files (Dataplanes: mesh-1/backend-1, mesh-1/infra-logger-1, mesh-1/infra-monitoring-1, mesh-1/payments-1, mesh-1/web-v1, mesh-1/web-v2)`,
		},
		{
			name:     "proxy in another namespace",
			args:     []string{"-f", meshSamples, "--kind", "MeshTimeout", "--proxy", "other/web-v1", "--outbound", "backend"},
			wantCode: 1,
			wantErr:  `proxy "other/web-v1" not found: no Dataplane of that name in the files (Dataplanes: mesh-1/backend-1, mesh-1/infra-logger-1, mesh-1/infra-monitoring-1, mesh-1/payments-1, mesh-1/web-v1, mesh-1/web-v2)`,
		},
		{
			name:     "missing file",
			args:     []string{"-f", filepath.Join(dir, "missing.yaml"), "--kind", "MeshTimeout", "--proxy", "web-v1", "--outbound", "backend"},
			wantCode: 2,
			wantErr:  "the input cannot be read: " + filepath.Join(dir, "missing.yaml") + ": no such file or directory",
		},
		{
			name:     "unparsable file",
			args:     []string{"-f", broken, "--kind", "MeshTimeout", "--proxy", "web-v1", "--outbound", "backend"},
			wantCode: 2,
			wantErr:  "the input cannot be read: " + broken + ":1: document 0: syntax error: did not find expected node content",
		},
		{
			name:       "invalid policy",
			args:       []string{"-f", meshSamples, "-f", invalid, "--kind", "MeshTimeout", "--proxy", "web-v1", "--outbound", "backend"},
			wantCode:   1,
			wantStderr: "MeshTimeout mesh-1/bad: spec.to[0].targetRef.kind: Unsupported value: \"Proxy\": supported values: \"Mesh\", \"Service\", \"HTTPRoute\"\n",
		},
		{
			name:       "invalid policy of another kind is not read",
			args:       []string{"-f", meshSamples, "-f", invalid, "--kind", "MeshTrafficPermission", "--proxy", "backend-1", "--from", "web"},
			wantCode:   -1,
			wantStderr: "",
		},
		{
			name:    "unknown kind",
			args:    []string{"-f", meshSamples, "--kind", "TrafficPolicy", "--proxy", "web-v1", "--outbound", "backend"},
			wantErr: `--kind "TrafficPolicy": the mesh kinds are MeshTimeout and MeshTrafficPermission, alone or as Kind.kuma.io or Kind.policy.precedent.dev`,
		},
		{
			name:    "traffic permission for an outbound",
			args:    []string{"-f", meshSamples, "--kind", "MeshTrafficPermission", "--proxy", "web-v1", "--outbound", "backend"},
			wantErr: "MeshTrafficPermission has only from arrays: use --from SERVICE[,TAG=VALUE...]",
		},
		{
			name:    "malformed source",
			args:    []string{"-f", meshSamples, "--kind", "MeshTrafficPermission", "--proxy", "web-v1", "--from", "web,version"},
			wantErr: `--from "web,version": tag "version": write tags as TAG=VALUE`,
		},
		{
			name:    "both outbound and from",
			args:    []string{"-f", meshSamples, "--kind", "MeshTimeout", "--proxy", "web-v1", "--outbound", "backend", "--from", "web"},
			wantErr: "if any flags in the group [outbound from] are set none of the others can be; [from outbound] were all set",
		},
		{
			name:       "outbound the proxy does not declare",
			args:       []string{"-f", meshSamples, "--kind", "MeshTimeout", "--proxy", "payments-1", "--outbound", "backend"},
			wantCode:   -1,
			wantStderr: "Warning: proxy payments-1 declares no outbound to service backend: merged as if it had one\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, err := runMesh(t, tt.args...)
			if diff := cmp.Diff(tt.wantStderr, stderr); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
			if tt.wantCode < 0 {
				if err != nil {
					t.Fatalf("err = %v, want none", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("err = nil, want exit %d", tt.wantCode)
			}
			code := 0
			var ee *exitError
			if errors.As(err, &ee) {
				code = ee.Code
			}
			if code != tt.wantCode {
				t.Errorf("exit code = %d, want %d", code, tt.wantCode)
			}
			if tt.wantErr != "" && err.Error() != tt.wantErr {
				t.Errorf("error:\n got %q\nwant %q", err.Error(), tt.wantErr)
			}
		})
	}
}

// TestKumaKinds: Kuma's own kuma.io kinds through the CLI. Without a PrecedentConfig managing them,
// validate lists them as not checked; with one line per kind (--config) they are checked with the
// mesh profile in the order Kuma enforces, and precedent mesh merges them with --kind Kind.kuma.io;
// effective refuses a mesh kind with a pointer to precedent mesh.
func TestKumaKinds(t *testing.T) {
	const kuma = "../../profiles/mesh/engine/testdata/kuma"
	const cfg = "testdata/kuma-mesh/config.yaml"
	t.Run("not checked without the config", func(t *testing.T) {
		out, _, code := run("validate", "-f", kuma)
		want := "Warning: PRC-W024 3 kuma.io/v1alpha1 MeshTimeout objects are not checked: add the kind under spec.kinds\n" +
			"Warning: PRC-W024 3 kuma.io/v1alpha1 MeshTrafficPermission objects are not checked: add the kind under spec.kinds\n" +
			"0 errors, 2 warnings in 10 objects\n"
		if code != 0 || out != want {
			t.Errorf("exit %d, output:\n%s\nwant exit 0 and:\n%s", code, out, want)
		}
	})
	t.Run("checked with one line per kind", func(t *testing.T) {
		// Each policy as the webhook reviews its create against the others: Kuma's `from` is
		// deprecated (with its rules form), and a policy that a write leaves without effect is named
		// on the writes that do it. On 2.14 (the kind lines' version) 01-consume-backend-timeouts'
		// MeshService item loses to 00-base-timeouts' Mesh item, whose name sorts first; on 3.0, the
		// default, Kuma sorts the to items by their own kind first (outbound/sort.go), so it decides
		// idleTimeout on backend and is not named.
		const (
			w14  = "Warning: PRC-W014 "
			w15  = "Warning: PRC-W015 "
			mt   = "MeshTimeout kuma-system/"
			mtp  = "MeshTrafficPermission kuma-system/"
			dead = "MeshTimeout kuma-system/01-consume-backend-timeouts never takes effect on any Dataplane: every field it sets is decided by kuma-system/web-timeouts, kuma-demo/timeout-global, kuma-system/00-base-timeouts\n"
			from = "spec.from is deprecated by Kuma 2.x and dropped silently by Kuma 3.0 on create and update: use spec.rules\n"
		)
		permissions := w15 + mtp + "allow-all: " + from +
			w15 + mtp + "allow-all: spec.from[0] as spec.rules[0]: {\"default\":{\"allow\":[{\"spiffeID\":{\"type\":\"Prefix\",\"value\":\"spiffe://<trust-domain>\"}}]}}\n" +
			w14 + mtp + "allow-all: MeshTrafficPermission kuma-system/deny-web-v1 never takes effect on any Dataplane: every field it sets is decided by kuma-system/allow-all\n" +
			w15 + mtp + "deny-web-v1: " + from +
			w15 + mtp + "deny-web-v1: spec.from[0] as spec.rules[0]: {\"default\":{\"deny\":[{\"spiffeID\":{\"type\":\"Exact\",\"value\":\"spiffe://<trust-domain>/ns/<namespace>/sa/<service account of web,version=v1>\"}}]}}\n" +
			w14 + mtp + "deny-web-v1 never takes effect on any Dataplane: every field it sets is decided by kuma-system/allow-all\n" +
			w15 + mtp + "shadow-web: " + from +
			w15 + mtp + "shadow-web: spec.from[0] as spec.rules[0]: {\"default\":{\"allowWithShadowDeny\":[{\"spiffeID\":{\"type\":\"Exact\",\"value\":\"spiffe://<trust-domain>/ns/<namespace>/sa/<service account of web>\"}}]}}\n" +
			w14 + mtp + "shadow-web never takes effect on any Dataplane: every field it sets is decided by kuma-system/allow-all\n"
		cfg214 := filepath.Join(t.TempDir(), "config.yaml")
		raw, err := os.ReadFile(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(cfg214, []byte(strings.ReplaceAll(string(raw), "profile: mesh}", `profile: mesh, version: "2.14"}`)), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct{ config, want string }{
			{cfg, permissions + "0 errors, 9 warnings in 10 objects\n"},
			{cfg214, w14 + mt + "00-base-timeouts: " + dead + w14 + dead + permissions + "0 errors, 11 warnings in 10 objects\n"},
		} {
			out, _, code := run("validate", "-f", kuma, "--config", c.config)
			if code != 0 || out != c.want {
				t.Errorf("%s: exit %d, output:\n%s\nwant exit 0 and:\n%s", c.config, code, out, c.want)
			}
		}
	})
	t.Run("merged in Kuma's order", func(t *testing.T) {
		out, _, code := run("mesh", "-f", kuma, "--kind", "MeshTimeout.kuma.io", "--proxy", "web-v1", "--outbound", "backend", "-o", "json")
		var got map[string]interface{}
		if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil {
			t.Fatalf("exit %d (%v):\n%s", code, err, out)
		}
		want := map[string]interface{}{
			"conf":    map[string]interface{}{"connectionTimeout": "5s", "http": map[string]interface{}{"requestTimeout": "15s"}, "idleTimeout": "20s"},
			"origins": map[string]interface{}{"connectionTimeout": "web-timeouts", "http.requestTimeout": "web-timeouts", "idleTimeout": "timeout-global"},
			"version": "3.0", // the Kuma version predicted (--kuma-version, 3.0 by default)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("merged conf (-want +got):\n%s", diff)
		}
	})
	t.Run("effective refuses a mesh kind", func(t *testing.T) {
		cmd := newRootCmd()
		cmd.SetOut(&bytes.Buffer{})
		cmd.SetErr(&bytes.Buffer{})
		cmd.SetArgs([]string{"effective", "-f", kuma, "--config", cfg, "--kind", "MeshTimeout.kuma.io"})
		err := cmd.Execute()
		var ee *exitError
		if !errors.As(err, &ee) || ee.Code != 2 || !strings.Contains(err.Error(), "is a mesh kind") {
			t.Errorf("error %v: want exit 2 saying it is a mesh kind", err)
		}
	})
}

// TestMeshKumaVersions: `precedent mesh --kuma-version` on a Dataplane of Kuma 3.0's shape (an
// inbound of only port and name) and on a MeshTrafficPermission with rules beside one with from
// items; the version predicted is in the output.
func TestMeshKumaVersions(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"dp.yaml": `apiVersion: kuma.io/v1alpha1
kind: Dataplane
metadata: {name: dp-1, namespace: kuma-system, labels: {kuma.io/mesh: default, app: api}}
spec: {networking: {address: 10.0.0.9, inbound: [{port: 8080, name: http}]}}
`,
		"tagged.yaml": `apiVersion: kuma.io/v1alpha1
kind: Dataplane
metadata: {name: tagged-1, namespace: kuma-system, labels: {kuma.io/mesh: default}}
spec: {networking: {address: 10.0.0.10, inbound: [{port: 8080, tags: {kuma.io/service: api}}]}}
`,
		"mtp.yaml": `apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata: {name: allow-zone, namespace: kuma-system, labels: {kuma.io/mesh: default}}
spec: {targetRef: {kind: Mesh}, rules: [{default: {allow: [{spiffeID: {type: Prefix, value: "spiffe://default.zone-1.mesh.local"}}]}}]}
---
apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata: {name: deny-web, namespace: kuma-system, labels: {kuma.io/mesh: default}}
spec: {targetRef: {kind: Mesh}, from: [{targetRef: {kind: MeshService, name: web}, default: {action: Deny}}]}
`,
	}
	for name, doc := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	rules := []string{"-f", dir, "--kind", "MeshTrafficPermission.kuma.io", "--proxy", "dp-1", "--rules", "--spiffe-id", "spiffe://default.zone-1.mesh.local/ns/web/sa/web", "--from", "web"}
	tests := []struct {
		name       string
		args       []string
		wantStdout string
		wantStderr string
		wantErr    bool
	}{
		{
			name:       "3.0 (the default) reads the untagged Dataplane; rules and from merged, the deny first",
			args:       rules,
			wantStdout: `{"conf":{"action":"Deny"},"origins":{"action":"deny-web"},"version":"3.0"}`,
		},
		{
			name:       "2.14 refuses the untagged Dataplane",
			args:       append(append([]string{}, rules...), "--kuma-version", "2.14"),
			wantStderr: "Dataplane kuma-system/dp-1: spec.networking.inbound[0].tags[kuma.io/service]: Required value (Kuma 2.14; Kuma 3.0 reads inbounds without it)\n",
			wantErr:    true,
		},
		{
			name:       "2.14 on a tagged Dataplane: the rules alone decide",
			args:       []string{"-f", filepath.Join(dir, "tagged.yaml"), "-f", filepath.Join(dir, "mtp.yaml"), "--kind", "MeshTrafficPermission.kuma.io", "--proxy", "tagged-1", "--rules", "--spiffe-id", "spiffe://default.zone-1.mesh.local/ns/web/sa/web", "--from", "web", "--kuma-version", "2.14"},
			wantStdout: `{"conf":{"action":"Allow"},"origins":{"action":"allow-zone"},"version":"2.14"}`,
		},
		{
			name:       "2.14, --from alone where rules select the proxy: a warning with its code",
			args:       []string{"-f", filepath.Join(dir, "tagged.yaml"), "-f", filepath.Join(dir, "mtp.yaml"), "--kind", "MeshTrafficPermission.kuma.io", "--proxy", "tagged-1", "--from", "web", "--kuma-version", "2.14"},
			wantStdout: `{"conf":{"action":"Deny"},"origins":{"action":"deny-web"},"version":"2.14"}`,
			wantStderr: "Warning: PRC-W190 MeshTrafficPermission rules select proxy tagged-1: Kuma 2.14 leaves the from items out there (use --rules --spiffe-id ID --from web)\n",
		},
		{
			name:    "an unknown version",
			args:    append(append([]string{}, rules...), "--kuma-version", "2.9"),
			wantErr: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, err := runMesh(t, tt.args...)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %t (stderr %q)", err, tt.wantErr, stderr)
			}
			var compact bytes.Buffer
			if stdout != "" {
				if err := json.Compact(&compact, []byte(stdout)); err != nil {
					t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
				}
			}
			if compact.String() != tt.wantStdout || stderr != tt.wantStderr {
				t.Errorf("stdout %s\nstderr %q\nwant stdout %s\nstderr %q", compact.String(), stderr, tt.wantStdout, tt.wantStderr)
			}
		})
	}
}

// TestMeshKumaOutbound: the to items of Kuma's MeshTimeouts on one outbound through the CLI, per
// Kuma version and port (testdata/kuma-outbound): on 3.0 items are ordered item by item
// (core/rules/outbound/sort.go), a label-only MeshService ref resolves against the MeshServices of the
// input (resolve.TargetRef), and a sectionName selects only the outbound to that port, by name or by
// number (--outbound SERVICE:PORT); on 2.14 (tag outbounds, legacyBuildToRules) the policies' order
// decides, labels select nothing and sectionName is not looked at.
func TestMeshKumaOutbound(t *testing.T) {
	args := func(outbound, version string) []string {
		return []string{"-f", "testdata/kuma-outbound", "--kind", "MeshTimeout.kuma.io", "--proxy", "web-1", "--outbound", outbound, "--kuma-version", version}
	}
	want := func(v, by, version string) string {
		return `{"conf":{"connectionTimeout":"` + v + `"},"origins":{"connectionTimeout":"` + by + `"},"version":"` + version + `"}`
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"2.14: the name that sorts first", args("backend", "2.14"), want("1s", "a-everything", "2.14")},
		{"2.14: the port changes nothing", args("backend:8080", "2.14"), want("1s", "a-everything", "2.14")},
		{"3.0, no port: the label-only MeshService item beats the Mesh item", args("backend", "3.0"), want("3s", "b-payments", "3.0")},
		{"3.0, the port by number: its name is http, the sectionName item wins", args("backend:8080", "3.0"), want("5s", "c-backend-http", "3.0")},
		{"3.0, the port by name", args("backend:http", "3.0"), want("5s", "c-backend-http", "3.0")},
		{"3.0, the other port: the sectionName item does not select it", args("backend:9090", "3.0"), want("3s", "b-payments", "3.0")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, err := runMesh(t, tt.args...)
			if err != nil || stderr != "" {
				t.Fatalf("err = %v, stderr %q", err, stderr)
			}
			var compact bytes.Buffer
			if err := json.Compact(&compact, []byte(stdout)); err != nil {
				t.Fatalf("stdout is not JSON: %v\n%s", err, stdout)
			}
			if compact.String() != tt.want {
				t.Errorf("stdout %s\nwant %s", compact.String(), tt.want)
			}
		})
	}
}
