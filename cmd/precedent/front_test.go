package main

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/precedent-dev/precedent/internal/finding"
)

var update = flag.Bool("update", false, "rewrite the golden files (testdata/explain, testdata/diff)")

const (
	kuadrantConfig = "testdata/kuadrant-config/config.yaml"
	kuadrantCRDs   = "../../test/crds/kuadrant"
)

// cmdResult is what one command run gives.
type cmdResult struct {
	code           int
	stdout, stderr string
}

// runResult runs the command as main does: a failure adds "error: …" to stderr.
func runResult(args ...string) cmdResult { return runResultIn("", args...) }

// runResultIn is runResult with stdin as standard input.
func runResultIn(stdin string, args ...string) cmdResult {
	var out, errb bytes.Buffer
	cmd := newRootCmd()
	cmd.SetIn(strings.NewReader(stdin))
	cmd.SetOut(&out)
	cmd.SetErr(&errb)
	cmd.SetArgs(args)
	r := cmdResult{}
	if err := cmd.Execute(); err != nil {
		r.code = 2
		var ee *exitError
		if errors.As(err, &ee) {
			r.code = ee.Code
		}
		errb.WriteString("error: " + err.Error() + "\n")
	}
	r.stdout, r.stderr = out.String(), errb.String()
	return r
}

// cmdCase is one command line and what it gives.
type cmdCase struct {
	name string
	args []string
	want cmdResult
}

func runCases(t *testing.T, cases []cmdCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := runResult(tc.args...)
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(cmdResult{})); diff != "" {
				t.Errorf("precedent %s (-want +got):\n%s", strings.Join(tc.args, " "), diff)
			}
		})
	}
}

func TestKindResolution(t *testing.T) {
	effectiveTable := `GATEWAY            LISTENER  ROUTE      RULE  RULE ID   FROM
gateway-system/gw  -         shop/cart  -     global    gateway-system/gw-rlp
gateway-system/gw  -         shop/cart  -     per-user  shop/cart-rlp
`
	notChecked := "Warning: PRC-W024 1 kuadrant.io/v1 AuthPolicy object is not checked: add the kind under spec.kinds\n"
	const ambiguous = "error: --kind RateLimitPolicy is ambiguous: there are objects of RateLimitPolicy.kuadrant.io and RateLimitPolicy.policy.precedent.dev; give Kind.group\n"
	runCases(t, []cmdCase{
		{
			name: "Kind.group picks the configured kind",
			args: []string{"effective", "-f", "testdata/kuadrant", "--config", kuadrantConfig, "--kind", "RateLimitPolicy.kuadrant.io"},
			want: cmdResult{stdout: effectiveTable, stderr: notChecked},
		},
		{
			name: "Kind.group is case-insensitive",
			args: []string{"effective", "-f", "testdata/kuadrant", "--config", kuadrantConfig, "--kind", "ratelimitpolicy.KUADRANT.io"},
			want: cmdResult{stdout: effectiveTable, stderr: notChecked},
		},
		{
			name: "a Kind two managed groups have means the one the input holds",
			args: []string{"effective", "-f", "testdata/kuadrant", "--config", kuadrantConfig, "--kind", "RateLimitPolicy"},
			want: cmdResult{stdout: effectiveTable, stderr: notChecked},
		},
		{
			name: "it is ambiguous when the input holds both",
			args: []string{"effective", "-f", "testdata/kuadrant", "-f", "testdata/twins", "--config", kuadrantConfig, "--kind", "RateLimitPolicy"},
			want: cmdResult{code: 2, stderr: ambiguous},
		},
		{
			name: "explain says the same ambiguity",
			args: []string{"explain", "-f", "testdata/kuadrant", "-f", "testdata/twins", "--config", kuadrantConfig, "--kind", "RateLimitPolicy", "--policy", "shop/cart-rlp"},
			want: cmdResult{code: 2, stderr: ambiguous},
		},
		{
			name: "a table of both kinds names each with its group",
			args: []string{"effective", "-f", "testdata/kuadrant", "-f", "testdata/twins", "--config", kuadrantConfig},
			want: cmdResult{stdout: "KIND                                  GATEWAY            LISTENER  ROUTE      RULE  RULE ID   FROM\n" +
				"RateLimitPolicy.policy.precedent.dev  gateway-system/gw  -         shop/cart  -     search    shop/cart-limits\n" +
				"RateLimitPolicy.kuadrant.io           gateway-system/gw  -         shop/cart  -     global    gateway-system/gw-rlp\n" +
				"RateLimitPolicy.kuadrant.io           gateway-system/gw  -         shop/cart  -     per-user  shop/cart-rlp\n",
				stderr: notChecked},
		},
		{
			name: "so does diff's",
			args: []string{"diff", "--base", "testdata/kuadrant", "--head", "testdata/kuadrant", "--head", "testdata/twins", "--config", kuadrantConfig, "-q"},
			want: cmdResult{code: 1, stdout: "1 change on 1 path of 1 route: 1 added, 0 removed, 0 changed, 0 moved\n\n" +
				"KIND                                  GATEWAY            LISTENER  ROUTE      RULE  RULE ID  CHANGE  FROM\n" +
				"RateLimitPolicy.policy.precedent.dev  gateway-system/gw  -         shop/cart  -     search   added   shop/cart-limits\n" +
				"0 errors, 0 warnings in 6 objects\n", stderr: "error: \n"},
		},
		{
			name: "a kind not managed is an error naming the managed ones",
			args: []string{"effective", "-f", "testdata/kuadrant", "--kind", "RateLimitPolicy.kuadrant.io"},
			want: cmdResult{code: 2, stderr: `error: --kind "RateLimitPolicy.kuadrant.io" is not a managed policy kind; the managed kinds are AuthPolicy.policy.precedent.dev, RateLimitPolicy.policy.precedent.dev, TrafficPolicy.policy.precedent.dev` + "\n"},
		},
		{
			name: "export vap resolves the configured kind",
			args: []string{"export", "vap", "--config", kuadrantConfig, "--kind", "RateLimitPolicy"},
			want: cmdResult{code: 2, stderr: "error: --kind RateLimitPolicy is ambiguous: RateLimitPolicy.kuadrant.io, RateLimitPolicy.policy.precedent.dev\n"},
		},
	})
}

func TestConfigFlag(t *testing.T) {
	runCases(t, []cmdCase{
		{
			name: "without a PrecedentConfig Kuadrant's policies are listed as not checked",
			args: []string{"validate", "-f", "testdata/kuadrant"},
			want: cmdResult{stdout: "Warning: PRC-W024 1 kuadrant.io/v1 AuthPolicy object is not checked: add the kind under spec.kinds\n" +
				"Warning: PRC-W024 2 kuadrant.io/v1 RateLimitPolicy objects are not checked: add the kind under spec.kinds\n" +
				"0 errors, 2 warnings in 5 objects\n"},
		},
		{
			name: "--config manages the kind: its policies are checked, the others still listed",
			args: []string{"validate", "-f", "testdata/kuadrant", "--config", kuadrantConfig},
			want: cmdResult{stdout: "Warning: PRC-W024 1 kuadrant.io/v1 AuthPolicy object is not checked: add the kind under spec.kinds\n" +
				"Note: PRC-N003 RateLimitPolicy gateway-system/gw-rlp: this write changes the effective RateLimitPolicy of 1 route\n" +
				"Note: PRC-N001 RateLimitPolicy gateway-system/gw-rlp: default rule per-user is replaced by RateLimitPolicy shop/cart-rlp on route shop/cart\n" +
				"Note: PRC-N005 RateLimitPolicy shop/cart-rlp: replaces gateway-system/gw-rlp's `per-user` on route shop/cart (Kuadrant: a more specific policy's rules replace defaults)\n" +
				"0 errors, 1 warning, 3 notes in 5 objects\n"},
		},
		{
			name: "--config wins over the PrecedentConfig of the input",
			args: []string{"validate", "-f", "testdata/configured", "--config", "testdata/kuadrant-config/config.yaml"},
			want: cmdResult{stdout: "Note: PRC-N001 RateLimitPolicy kuadrant/gw-rlp: spec.defaults of this policy are replaced by RateLimitPolicy kuadrant/toystore-rlp on route kuadrant/toystore\n" +
				"Note: PRC-N005 RateLimitPolicy kuadrant/toystore-rlp: replaces kuadrant/gw-rlp's `global`, `per-user` and `when` on route kuadrant/toystore (Kuadrant: a more specific policy's rules replace defaults)\n" +
				"0 errors, 0 warnings, 2 notes in 5 objects\n"},
		},
		{
			name: "an invalid --config is exit 2 with the field paths",
			args: []string{"validate", "-f", "testdata/kuadrant", "--config", "testdata/bad-config/config.yaml"},
			want: cmdResult{code: 2, stderr: `error: --config testdata/bad-config/config.yaml: PrecedentConfig cluster: [spec.warningLimit: Invalid value: 0: must be between 1 and 100, spec.kinds[0].profile: Unsupported value: "kuadrnt": supported values: "defaults-overrides", "envoy-gateway", "gep713", "kgateway", "kuadrant", "mesh", "nginx-gateway-fabric"]` + "\n"},
		},
		{
			name: "a --config asking status full of a profile without a status writer is exit 2",
			args: []string{"validate", "-f", "testdata/kuadrant", "--config", "testdata/status-full-config/config.yaml"},
			want: cmdResult{code: 2, stderr: `error: --config testdata/status-full-config/config.yaml: PrecedentConfig cluster: [spec.kinds[0].status: Unsupported value: "full": supported values: "none", spec.kinds[2].status: Unsupported value: "full": supported values: "none"]` + "\n"},
		},
		{
			name: "a PrecedentConfig in the input asking status full of a profile without a status writer is exit 2",
			args: []string{"validate", "-f", "testdata/status-full-config"},
			want: cmdResult{code: 2, stderr: `error: testdata/status-full-config/config.yaml: document 0: PrecedentConfig cluster: [spec.kinds[0].status: Unsupported value: "full": supported values: "none", spec.kinds[2].status: Unsupported value: "full": supported values: "none"]` + "\n"},
		},
		{
			name: "a --config without a PrecedentConfig is exit 2",
			args: []string{"validate", "-f", "testdata/kuadrant", "--config", "testdata/kuadrant/objects.yaml"},
			want: cmdResult{code: 2, stderr: "error: --config testdata/kuadrant/objects.yaml: want one PrecedentConfig, found 0\n"},
		},
	})
}

func TestValidateWithCRDs(t *testing.T) {
	kuadrantRejects := "PRC-E043 RateLimitPolicy shop/mixed: spec: Invalid value: Implicit and explicit defaults are mutually exclusive\n" +
		"PRC-E043 RateLimitPolicy shop/slow: spec.limits.per-user.rates[0].window: Invalid value: \"one-minute\": spec.limits.per-user.rates[0].window in body should match '^([0-9]{1,5}(h|m|s|ms)){1,4}$'\n"
	runCases(t, []cmdCase{
		{
			name: "--crd applies Kuadrant's CRD rules before Precedent's checks",
			args: []string{"validate", "-f", "testdata/kuadrant-invalid", "--crd", kuadrantCRDs, "--config", kuadrantConfig},
			want: cmdResult{code: 1, stdout: kuadrantRejects + "2 errors, 0 warnings in 2 objects\n", stderr: "error: 2 errors\n"},
		},
		{
			name: "a CRD in the input counts like --crd, managed or not",
			args: []string{"validate", "-f", "testdata/kuadrant-invalid", "-f", kuadrantCRDs},
			want: cmdResult{code: 1, stdout: kuadrantRejects + "2 errors, 0 warnings in 5 objects\n", stderr: "error: 2 errors\n"},
		},
		{
			name: "without the CRD only the not-checked warning remains",
			args: []string{"validate", "-f", "testdata/kuadrant-invalid"},
			want: cmdResult{stdout: "Warning: PRC-W024 2 kuadrant.io/v1 RateLimitPolicy objects are not checked: add the kind under spec.kinds\n" +
				"0 errors, 1 warning in 2 objects\n"},
		},
		{
			name: "the shipped CRDs carry rules too: the CRD rejects first, the rejected object is left out",
			args: []string{"validate", "-f", "testdata/invalid", "--crd", "../../config/crd/ratelimitpolicy.yaml"},
			want: cmdResult{code: 1, stdout: "PRC-E043 RateLimitPolicy shop/mixed: spec.limits: Forbidden: bare limits cannot be combined with spec.defaults or spec.overrides: move them into spec.defaults\n" +
				"AuthPolicy shop/route-policy: spec.unset[0]: Forbidden: PRC-E023 rule authorization.b is set by the overrides of AuthPolicy gateway-system/gw-policy and cannot be unset: remove it from spec.unset\n" +
				"Warning: PRC-W005 AuthPolicy gateway-system/gw-policy: the override of authorization.b makes the unset in AuthPolicy shop/route-policy ineffective on route shop/cart\n" +
				"Note: PRC-N003 AuthPolicy gateway-system/gw-policy: this write changes the effective AuthPolicy of 1 route\n" +
				"2 errors, 1 warning, 1 note in 5 objects\n",
				stderr: "error: 2 errors\n"},
		},
		{
			name: "--crd takes config/crd: subfolders are read, kustomization.yaml is skipped",
			args: []string{"validate", "-f", "testdata/invalid", "--crd", "../../config/crd"},
			want: cmdResult{code: 1, stdout: "PRC-E043 RateLimitPolicy shop/mixed: spec.limits: Forbidden: bare limits cannot be combined with spec.defaults or spec.overrides: move them into spec.defaults\n" +
				"AuthPolicy shop/route-policy: spec.unset[0]: Forbidden: PRC-E023 rule authorization.b is set by the overrides of AuthPolicy gateway-system/gw-policy and cannot be unset: remove it from spec.unset\n" +
				"Warning: PRC-W005 AuthPolicy gateway-system/gw-policy: the override of authorization.b makes the unset in AuthPolicy shop/route-policy ineffective on route shop/cart\n" +
				"Note: PRC-N003 AuthPolicy gateway-system/gw-policy: this write changes the effective AuthPolicy of 1 route\n" +
				"2 errors, 1 warning, 1 note in 5 objects\n",
				stderr: "error: 2 errors\n"},
		},
		{
			name: "the samples pass the shipped CRDs, Gateway API's included",
			args: []string{"validate", "-f", "../../config/samples/rfc/b2", "-f", "../../config/crd", "-f", "../../config/crd/gateway-api"},
			want: cmdResult{stdout: "Note: PRC-N003 AuthPolicy b2/gw-policy: this write changes the effective AuthPolicy of 1 route\n" +
				"Note: PRC-N001 AuthPolicy b2/gw-policy: default rule authorization.b is replaced by AuthPolicy b2/route-policy on route b2/route\n" +
				"Note: PRC-N005 AuthPolicy b2/route-policy: replaces b2/gw-policy's `authorization.b` on route b2/route (defaults-overrides: a more specific policy's rules replace defaults)\n" +
				"0 errors, 0 warnings, 3 notes in 21 objects\n"},
		},
		{
			name: "--crd with no CRD among other objects is exit 2",
			args: []string{"validate", "-f", "testdata/kuadrant", "--crd", "testdata/kuadrant"},
			want: cmdResult{code: 2, stderr: "error: --crd testdata/kuadrant: no CustomResourceDefinition found\n"},
		},
	})
}

func TestExplainPolicyJSON(t *testing.T) {
	for _, tc := range []struct {
		golden string
		args   []string
	}{
		{"authpolicy-overridden", []string{"-f", "../../config/samples/rfc/c1", "--kind", "AuthPolicy", "--policy", "c1/route-policy"}},
		{"authpolicy-unset", []string{"-f", "../../config/samples/rfc/f1", "--kind", "AuthPolicy", "--policy", "f1/gw-policy"}},
		{"ratelimitpolicy-clipped", []string{"-f", "../../config/samples/rfc/e2", "--kind", "RateLimitPolicy", "--policy", "e2/route-policy"}},
		{"trafficpolicy-partially-enforced", []string{"-f", "../../config/samples/gep713", "--kind", "TrafficPolicy", "--policy", "gep713-timeouts/route-timeouts"}},
		{"kuadrant-ratelimitpolicy", []string{"-f", "testdata/kuadrant", "--config", kuadrantConfig, "--kind", "RateLimitPolicy.kuadrant.io", "--policy", "gateway-system/gw-rlp"}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			out, errs, code := run(append([]string{"explain", "-o", "json"}, tc.args...)...)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, errs)
			}
			golden := filepath.Join("testdata", "explain", tc.golden+".json")
			if *update {
				if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to write it)", err)
			}
			if diff := cmp.Diff(string(want), out); diff != "" {
				t.Errorf("explain %s (-want +got):\n%s", strings.Join(tc.args, " "), diff)
			}
		})
	}
}

func TestMissingObjects(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"effective --target that does not exist", []string{"effective", "--kind", "AuthPolicy", "--target", "httproute/c1/nope"}, "error: HTTPRoute c1/nope not found\n"},
		{"effective --target in the wrong namespace", []string{"effective", "--kind", "AuthPolicy", "--target", "httproute/shop/route"}, "error: HTTPRoute shop/route not found\n"},
		{"explain --target that does not exist", []string{"explain", "--kind", "AuthPolicy", "--target", "gateway/c1/nope", "--rule", "authorization.b"}, "error: Gateway c1/nope not found\n"},
		{"explain --policy that does not exist", []string{"explain", "--kind", "AuthPolicy", "--policy", "c1/nope"}, "error: AuthPolicy.policy.precedent.dev c1/nope not found\n"},
		{"explain --policy of another kind", []string{"explain", "--kind", "RateLimitPolicy", "--policy", "c1/gw-policy"}, "error: RateLimitPolicy.policy.precedent.dev c1/gw-policy not found\n"},
		{"explain --rule no policy declares", []string{"explain", "--kind", "AuthPolicy", "--target", "httproute/c1/route", "--rule", "authorization.zz"}, "error: no AuthPolicy.policy.precedent.dev declares rule \"authorization.zz\"\n"},
		{"explain --reach of a rule no policy declares", []string{"explain", "--kind", "RateLimitPolicy", "--reach", "--rule", "authorization.b"}, "error: no RateLimitPolicy.policy.precedent.dev declares rule \"authorization.b\"\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := runResult(append(tc.args, "-f", "../../config/samples/rfc/c1")...)
			if got.code != 1 {
				t.Errorf("exit %d, want 1", got.code)
			}
			if diff := cmp.Diff(tc.want, got.stderr); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
	// A target in its own namespace is found, and only its paths are shown.
	out, _, code := run("effective", "-f", "../../config/samples/rfc", "--kind", "AuthPolicy", "--target", "httproute/c1/route")
	want := `GATEWAY  LISTENER  ROUTE     RULE  RULE ID           FROM
c1/gw    -         c1/route  -     authentication.a  c1/gw-policy
c1/gw    -         c1/route  -     authorization.b   c1/gw-policy
`
	if code != 0 || out != want {
		t.Errorf("effective --target httproute/c1/route: exit %d\n%s\nwant:\n%s", code, out, want)
	}
}

func TestEscapedOutput(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{
			name: "effective table",
			args: []string{"effective", "-f", "testdata/escaping", "--kind", "RateLimitPolicy"},
			want: `GATEWAY  LISTENER  ROUTE      RULE  RULE ID       FROM
shop/gw  -         shop/cart  -     abc\u202edef  shop/p
shop/gw  -         shop/cart  -     red\x1b[31m   shop/p
`,
		},
		{
			name: "explain --policy text",
			args: []string{"explain", "-f", "testdata/escaping", "--kind", "RateLimitPolicy", "--policy", "shop/p"},
			want: `RateLimitPolicy shop/p
  Accepted: True Accepted: Policy has been accepted
  Enforced: True Enforced: Policy has been successfully enforced
shop/p abc\u202edef: in effect on 1 path, replaced on 0
shop/p red\x1b[31m: in effect on 1 path, replaced on 0
`,
		},
		{
			name: "explain --reach text",
			args: []string{"explain", "-f", "testdata/escaping", "--kind", "RateLimitPolicy", "--reach", "--rule", "red\x1b[31m"},
			want: `red\x1b[31m reaches 1 path
  route shop/cart (gateway shop/gw) from shop/p
`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := run(tc.args...)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, errs)
			}
			if diff := cmp.Diff(tc.want, out); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
		})
	}
	// Invalid UTF-8 cannot be written in YAML; the table and report printers escape it too.
	var b bytes.Buffer
	row(&b, "a\xffb", "\u202e")
	u := &unstructured.Unstructured{}
	u.SetKind("RateLimitPolicy")
	u.SetNamespace("shop")
	u.SetName("p")
	finding.WriteText(&b, []finding.Finding{finding.Warning(finding.Object{}, "rule \x00"), finding.Error(u, errors.New("spec.limits[x\xff]: Invalid value"))})
	want := "a\\xffb\t\\u202e\nRateLimitPolicy shop/p: spec.limits[x\\xff]: Invalid value\nWarning: rule \\x00\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("escaped printers (-want +got):\n%s", diff)
	}
}
