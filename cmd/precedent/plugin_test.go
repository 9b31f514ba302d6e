package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/precedent-dev/precedent/internal/topology"
)

func TestParseTarget(t *testing.T) {
	tests := []struct {
		name, in string
		want     topology.Target
		wantErr  string
	}{
		{name: "kind, namespace and name", in: "httproute/shop/cart", want: topology.Target{Kind: "HTTPRoute", Namespace: "shop", Name: "cart"}},
		{name: "TYPE/NAME leaves the namespace to -n", in: "httproute/cart", want: topology.Target{Kind: "HTTPRoute", Name: "cart"}},
		{name: "plural resource name", in: "httproutes/shop/cart", want: topology.Target{Kind: "HTTPRoute", Namespace: "shop", Name: "cart"}},
		{name: "resource.group", in: "gateways.gateway.networking.k8s.io/infra/gw", want: topology.Target{Kind: "Gateway", Namespace: "infra", Name: "gw"}},
		{name: "a GatewayClass has no namespace", in: "gatewayclass/eg", want: topology.Target{Kind: "GatewayClass", Name: "eg"}},
		{name: "a GatewayClass with a namespace is malformed", in: "gatewayclasses/x/eg", wantErr: `--target "gatewayclasses/x/eg": want KIND/NAME or KIND/NAMESPACE/NAME`},
		{name: "unknown kind", in: "service/shop/cart", wantErr: `--target "service/shop/cart": kind must be one of gateway, httproute, grpcroute, gatewayclass, listenerset, tlsroute, tcproute, udproute`},
		{name: "empty name", in: "httproute/shop/", wantErr: `--target "httproute/shop/": want KIND/NAME or KIND/NAMESPACE/NAME`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseTarget(tt.in)
			if gotErr := errString(err); gotErr != tt.wantErr {
				t.Fatalf("error = %q, want %q", gotErr, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("target (-want +got):\n%s", diff)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestPluginFrontDoor(t *testing.T) {
	rfc := "../../config/samples/rfc"
	runCases(t, []cmdCase{
		{
			name: "TYPE/NAME with -n is looked up in that namespace, offline too",
			args: []string{"effective", "-f", rfc, "--kind", "AuthPolicy", "-n", "c1", "--target", "httproute/route"},
			want: cmdResult{stdout: `GATEWAY  LISTENER  ROUTE     RULE  RULE ID           FROM
c1/gw    -         c1/route  -     authentication.a  c1/gw-policy
c1/gw    -         c1/route  -     authorization.b   c1/gw-policy
`},
		},
		{
			name: "a TYPE/NAME target that does not exist in the namespace of -n",
			args: []string{"effective", "-f", rfc, "--kind", "AuthPolicy", "-n", "c2", "--target", "httproute/nope"},
			want: cmdResult{code: 1, stderr: "error: HTTPRoute c2/nope not found\n"},
		},
		{
			name: "-o wide shows each rule's value (E2's clipped limit)",
			args: []string{"effective", "-f", "../../config/samples/rfc/e2", "--kind", "RateLimitPolicy", "-o", "wide"},
			want: cmdResult{stdout: `GATEWAY  LISTENER  ROUTE     RULE  RULE ID  FROM          VALUE
e2/gw    -         e2/route  -     x        e2/gw-policy  {"rates":[{"limit":100,"window":"1m"}]}
`},
		},
		{
			name: "nothing to show is said as kubectl says it",
			args: []string{"effective", "-f", "../../config/samples/mesh"},
			want: cmdResult{stderr: "No resources found\n"},
		},
		{
			name: "a shipped kind without paths names the command that shows it",
			args: []string{"effective", "-f", "../../config/samples/access", "--kind", "AccessPolicy"},
			want: cmdResult{code: 2, stderr: "error: --kind AccessPolicy.policy.precedent.dev has no effective policy per Gateway API path: its model decides per request or per proxy; see precedent access and precedent diff\n"},
		},
	})
}

// Without --kind, effective shows the items of every managed kind, each kind's as --kind shows them.
func TestEffectiveEveryKind(t *testing.T) {
	items := func(args ...string) []json.RawMessage {
		t.Helper()
		r := runResult(append([]string{"effective", "-f", "../../config/samples/rfc", "-o", "json"}, args...)...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d: %s", args, r.code, r.stderr)
		}
		var doc struct{ Items []json.RawMessage }
		if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
			t.Fatal(err)
		}
		return doc.Items
	}
	want := append(items("--kind", "AuthPolicy"), items("--kind", "RateLimitPolicy")...)
	if diff := cmp.Diff(want, items(), cmp.Comparer(func(a, b json.RawMessage) bool { return string(a) == string(b) })); diff != "" {
		t.Errorf("every kind (-AuthPolicy then RateLimitPolicy +without --kind):\n%s", diff)
	}
	table := runResult("effective", "-f", "../../config/samples/rfc")
	if !strings.HasPrefix(table.stdout, "KIND ") || !strings.Contains(table.stdout, "\nRateLimitPolicy  e1/gw") {
		t.Errorf("the table of every kind has a KIND column and every kind's rows:\n%s", table.stdout)
	}
}

// A cluster that does not answer is said to be unreachable, with or without --config (which would
// not help), not as a failure to read one kind.
func TestUnreachableCluster(t *testing.T) {
	want := "cannot reach the cluster's API server (check --kubeconfig, --context and the server's address)"
	for _, args := range [][]string{
		{"effective", "--server", "https://127.0.0.1:1", "--request-timeout", "5s"},
		{"effective", "--server", "https://127.0.0.1:1", "--request-timeout", "5s", "--config", kuadrantConfig},
	} {
		r := runResult(args...)
		if r.code != 2 || !strings.Contains(r.stderr, want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 saying %q", args, r.code, r.stderr, want)
		}
	}
}

// TestKubectlConventions: the plugin reads its arguments as kubectl does: TYPE/NAME positional
// arguments name the target (in the namespace of -n), paths are -f on explain too, --policy NAME is
// in the namespace of -n.
func TestKubectlConventions(t *testing.T) {
	rfc := "../../config/samples/rfc"
	table := "GATEWAY  LISTENER  ROUTE     RULE  RULE ID           FROM\n" +
		"c1/gw    -         c1/route  -     authentication.a  c1/gw-policy\n" +
		"c1/gw    -         c1/route  -     authorization.b   c1/gw-policy\n"
	policy := runResult("explain", "-f", rfc, "--kind", "AuthPolicy", "--policy", "c1/route-policy")
	if policy.code != 0 {
		t.Fatalf("explain --policy c1/route-policy: %+v", policy)
	}
	runCases(t, []cmdCase{
		{
			name: "TYPE/NAME as an argument is the target, in the namespace of -n",
			args: []string{"effective", rfc, "--kind", "AuthPolicy", "-n", "c1", "httproute/route"},
			want: cmdResult{stdout: table},
		},
		{
			name: "TYPE/NAMESPACE/NAME as an argument",
			args: []string{"effective", rfc, "--kind", "AuthPolicy", "httproutes/c1/route"},
			want: cmdResult{stdout: table},
		},
		{
			name: "two targets are an error",
			args: []string{"effective", rfc, "--kind", "AuthPolicy", "--target", "httproute/c1/route", "httproute/c2/route"},
			want: cmdResult{code: 2, stderr: "error: httproute/c2/route: a target is given already (httproute/c1/route): give one\n"},
		},
		{
			name: "--policy NAME is in the namespace of -n, and explain takes paths as arguments",
			args: []string{"explain", rfc, "--kind", "AuthPolicy", "-n", "c1", "--policy", "route-policy"},
			want: policy,
		},
		{
			name: "a malformed --policy",
			args: []string{"explain", rfc, "--kind", "AuthPolicy", "--policy", "c1/route/policy"},
			want: cmdResult{code: 2, stderr: `error: --policy "c1/route/policy": want NAME or NAMESPACE/NAME` + "\n"},
		},
	})
}

// TestPluginHelp: run as kubectl-precedent, the help says `kubectl precedent` in its usage lines and
// examples, and --request-timeout shows the default it has (30s, not kubectl's 0).
func TestPluginHelp(t *testing.T) {
	var out strings.Builder
	root := newRootCmd()
	asPlugin(root)
	root.SetOut(&out)
	root.SetArgs([]string{"effective", "--help"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	help := out.String()
	for _, want := range []string{
		"  kubectl precedent effective [[-f] PATH ...]",
		"  kubectl precedent effective -f config/samples/rfc --kind AuthPolicy -o dot\n",
		`(e.g. 1s, 2m, 3h). A value of zero means don't timeout requests. (default "30s")`,
	} {
		if !strings.Contains(help, want) {
			t.Errorf("help lacks %q:\n%s", want, help)
		}
	}
	if strings.Contains(help, "\n  precedent ") {
		t.Errorf("help still says precedent without kubectl:\n%s", help)
	}
}
