package cli_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/precedent-dev/precedent/test/harness"
)

// TestOfflineSchemaMatchesTheAPIServer: with no --crd, validate -f rejects what the API server
// rejects of Precedent's own kinds (its CRDs are built in), in the API server's words: a typo, an
// unknown field (kubectl's strict field validation), and 10,000 unset entries where the CRD allows
// 64.
func TestOfflineSchemaMatchesTheAPIServer(t *testing.T) {
	items := make([]string, 10000)
	for i := range items {
		items[i] = fmt.Sprintf("authorization.r%d", i)
	}
	cases := []struct {
		name, spec string
		want       string // in the API server's error and in validate's line
	}{
		{"a typo of overrides", `overides: {rules: {authorization: {b: {opa: {rego: allow}}}}}`, `unknown field "spec.overides"`},
		{"an unknown field", "rules: {authorization: {b: {opa: {rego: allow}}}}\n  bogusField: 1", `unknown field "spec.bogusField"`},
		{"10000 unset entries", "rules: {authorization: {b: {opa: {rego: allow}}}}\n  unset: [" + strings.Join(items, ", ") + "]", `spec.unset: Too many: 10000: must have at most 64 items`},
	}
	ns := harness.Namespace(t, c)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			doc := `
apiVersion: policy.precedent.dev/v1alpha1
kind: AuthPolicy
metadata: {name: p, namespace: ` + ns + `}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart}
  ` + tc.spec
			err := c.Create(context.Background(), harness.Object(doc), client.FieldValidation("Strict"))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("API server: %v\nwant an error with %q", err, tc.want)
			}
			file := filepath.Join(t.TempDir(), "p.yaml")
			if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
				t.Fatal(err)
			}
			out, stderr, code := precedent(t, "validate", "-f", file)
			if code != 1 || !strings.Contains(out, "AuthPolicy "+ns+"/p: ") || !strings.Contains(out, tc.want) || strings.Contains(out, "<nil>") {
				t.Errorf("validate: exit %d, want 1 and a line with %q and no <nil>:\n%s%s", code, tc.want, out, stderr)
			}
		})
	}
}
