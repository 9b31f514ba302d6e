package access

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/precedent-dev/precedent/internal/profile"
	engine "github.com/precedent-dev/precedent/profiles/access/engine"
)

type accessOptions struct {
	gateway      string
	backend      string
	source       string
	tool         string
	externalAuth []string
	combine      string
	output       string
}

// Simulator is `precedent access`: one tool call decided from the AccessPolicies of files.
func (Profile) Simulator(read profile.Read) *cobra.Command {
	o := accessOptions{combine: engine.AnyAllow, output: "json"}
	cmd := &cobra.Command{
		Use:   "access [-f PATH] --gateway NS/NAME --backend NS/NAME --source serviceaccount:NS/NAME|spiffe:URI --tool NAME",
		Short: "Decide one tool call through a Gateway to a Backend from the AccessPolicies in files or the cluster",
		Long: `Evaluates the AccessPolicies of the files (without -f, of the cluster in the kubeconfig, as far as
your credentials may list them; kubectl's connection flags apply) for one request: the policies targeting the Gateway,
then those targeting the Backend, each level in precedence order (older creationTimestamp, then
namespace/name). ExternalAuth outcomes cannot be known offline: give them with --external-auth,
otherwise they are assumed to allow and the trace says "assumed". Prints the decision, where a denial
happened, and a trace of every rule consulted. Exit status, as kubectl auth can-i: 0 when the call
is allowed, 1 when it is denied (the decision is printed) or a policy is invalid (the errors are
printed instead), 2 if a file cannot be read.`,
		Example: `  precedent access -f config/samples/access --gateway prod/prod-gateway --backend prod/payment-service \
    --source serviceaccount:prod/payment-agent --tool get_payment \
    --external-auth prod/gateway-policy-audit=allow -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			objs, err := read(cmd.Context(), cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			return o.run(objs, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.gateway, "gateway", "", "the Gateway the request goes through, NAMESPACE/NAME")
	f.StringVar(&o.backend, "backend", "", "the Backend the request goes to, NAMESPACE/NAME")
	f.StringVar(&o.source, "source", "", "who calls: serviceaccount:NAMESPACE/NAME or spiffe:spiffe://TRUST-DOMAIN/PATH")
	f.StringVar(&o.tool, "tool", "", "the tool called")
	f.StringArrayVar(&o.externalAuth, "external-auth", nil, "outcome of a policy's ExternalAuth rule, NAMESPACE/NAME=allow|deny (repeatable)")
	f.StringVar(&o.combine, "combine", o.combine, "how the allow rules of a level combine: anyAllow or allAllow")
	f.StringVarP(&o.output, "output", "o", o.output, "output format: json")
	for _, name := range []string{"gateway", "backend", "source", "tool"} {
		_ = cmd.MarkFlagRequired(name)
	}
	return cmd
}

func (o *accessOptions) run(objs []*unstructured.Unstructured, stdout, stderr io.Writer) error {
	if o.output != "json" {
		return fmt.Errorf("output format %q is not supported: use -o json", o.output)
	}
	s := engine.DefaultSettings()
	s.Combine = o.combine
	if err := s.Validate(); err != nil {
		return err
	}
	gwNS, gwName, err := splitKey("--gateway", o.gateway)
	if err != nil {
		return err
	}
	beNS, beName, err := splitKey("--backend", o.backend)
	if err != nil {
		return err
	}
	source, err := engine.ParsePrincipal(o.source)
	if err != nil {
		return err
	}
	if o.tool == "" {
		return errors.New("--tool is empty: name the tool called")
	}
	outcomes, err := parseOutcomes(o.externalAuth)
	if err != nil {
		return err
	}

	policies, others, invalid := readAccess(objs, s, gwNS+"/"+gwName, beNS+"/"+beName, stderr)
	if invalid {
		return &profile.ExitError{Code: 1, Err: errors.New("")}
	}

	topo, err := engine.NewTopology(others, s)
	if err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			fmt.Fprintf(stderr, "Warning: %s: ignored\n", line)
		}
	}
	gw, be := gwNS+"/"+gwName, beNS+"/"+beName
	if !slices.Contains(topo.GatewaysInFront(be), gw) {
		fmt.Fprintf(stderr, "Warning: no HTTPRoute in the files sends traffic from gateway %s to backend %s\n", gw, be)
	}
	var gatewayPolicies, backendPolicies []engine.Policy
	known := map[string]bool{}
	for _, p := range policies {
		known[p.Key()] = true
		if p.TargetsObject(engine.GatewayGroup, engine.GatewayKind, gwNS, gwName) {
			gatewayPolicies = append(gatewayPolicies, p)
		}
		if p.TargetsObject(s.BackendGroup, s.BackendKind, beNS, beName) {
			backendPolicies = append(backendPolicies, p)
		}
	}
	for _, k := range sortedKeys(outcomes) {
		if !known[k] {
			fmt.Fprintf(stderr, "Warning: --external-auth %s: no such policy in the files\n", k)
		}
	}

	d := engine.Evaluate(engine.Request{Source: source, Tool: o.tool, ExternalAuth: outcomes}, gatewayPolicies, backendPolicies, s)
	out, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the decision: %w", err)
	}
	if _, err = fmt.Fprintf(stdout, "%s\n", out); err != nil {
		return err
	}
	if d.Decision != engine.Allow {
		return &profile.ExitError{Code: 1} // denied, as kubectl auth can-i exits "no"
	}
	return nil
}

func splitKey(flag, v string) (string, string, error) {
	ns, name, ok := strings.Cut(v, "/")
	if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
		return "", "", fmt.Errorf("%s %q: write it as NAMESPACE/NAME", flag, v)
	}
	return ns, name, nil
}

func parseOutcomes(flags []string) (map[string]engine.Outcome, error) {
	out := make(map[string]engine.Outcome, len(flags))
	for _, f := range flags {
		key, v, ok := strings.Cut(f, "=")
		if _, _, err := splitKey("--external-auth", key); !ok || err != nil {
			return nil, fmt.Errorf("--external-auth %q: write it as NAMESPACE/NAME=allow or NAMESPACE/NAME=deny", f)
		}
		switch o := engine.Outcome(v); o {
		case engine.Allow, engine.Deny:
			out[key] = o
		default:
			return nil, fmt.Errorf("--external-auth %q: the outcome must be allow or deny", f)
		}
	}
	return out, nil
}

func sortedKeys(m map[string]engine.Outcome) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// readAccess parses the AccessPolicies among objs (the other objects are the topology). The errors
// of a policy on the request's path (gateway or backend, NAMESPACE/NAME) are printed and make
// invalid; a policy of neither does not decide this request (a cluster holds many), so its errors
// are warnings and it is left out.
func readAccess(objs []*unstructured.Unstructured, s engine.Settings, gw, be string, stderr io.Writer) (policies []engine.Policy, others []*unstructured.Unstructured, invalid bool) {
	gwNS, gwName, _ := strings.Cut(gw, "/")
	beNS, beName, _ := strings.Cut(be, "/")
	for _, obj := range objs {
		if obj.GetNamespace() == "" {
			obj.SetNamespace("default")
		}
		if !engine.IsPolicy(obj.GroupVersionKind().GroupKind()) {
			others = append(others, obj)
			continue
		}
		p, errs := engine.Parse(obj, s)
		onPath := p.TargetsObject(engine.GatewayGroup, engine.GatewayKind, gwNS, gwName) || p.TargetsObject(s.BackendGroup, s.BackendKind, beNS, beName)
		for _, e := range errs {
			if onPath {
				fmt.Fprintf(stderr, "%s %s/%s: %s\n", obj.GetKind(), obj.GetNamespace(), obj.GetName(), e.Error())
				invalid = true
			} else {
				fmt.Fprintf(stderr, "Warning: %s %s/%s: %s: not on this request's path, left out\n", obj.GetKind(), obj.GetNamespace(), obj.GetName(), e.Error())
			}
		}
		if len(errs) == 0 || onPath {
			policies = append(policies, p)
		}
	}
	return policies, others, invalid
}
