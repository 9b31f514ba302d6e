package mesh

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/precedent-dev/precedent/internal/profile"
	engine "github.com/precedent-dev/precedent/profiles/mesh/engine"
)

type meshOptions struct {
	kind     string
	proxy    string
	outbound string
	from     string
	rules    bool
	spiffeID string
	sni      string
	version  string
	output   string
}

// simResult is the simulator's output: the merged configuration and the Kuma version predicted.
type simResult struct {
	engine.Result
	Version engine.Version `json:"version"`
}

// Simulator is `precedent mesh`: the merged configuration of one proxy's outbound or source from the
// mesh policies and Dataplanes of files.
func (Profile) Simulator(read profile.Read) *cobra.Command {
	o := meshOptions{output: "json"}
	cmd := &cobra.Command{
		Use:   "mesh [-f PATH] --kind KIND --proxy NAME (--outbound SERVICE[:PORT] | --from SERVICE[,TAG=VALUE...] | --rules [--spiffe-id ID] [--sni NAME])",
		Short: "Merge the mesh policies (Kuma targetRef model) for one outbound or one source of a proxy",
		Long: `Merges the MeshTimeouts or MeshTrafficPermissions of the files (without -f, of the cluster in the
kubeconfig, as far as your credentials may list them) for one Dataplane, as the Kuma MADR
"New Policy Matching" states: the policies whose targetRef selects the proxy, most specific level
first (Proxy, ServiceSubset, Service, MeshSubset, Mesh) and within a level the name that sorts later
first (current Kuma lets the smaller name win); their to (or from) arrays concatenated; the elements
that select the outbound (or the source) merged field by field, the first that sets a field winning.
With --rules (Kuma's own kinds, KIND.kuma.io) it shows the effective inbound configuration of the
proxy from Kuma's spec.rules, as Kuma builds it: for all clients, or for the client of --spiffe-id
(and --sni); a MeshTrafficPermission client named both ways (--rules --spiffe-id with --from) gets
the action Kuma gives it from the rules and the from items together: on 3.0 both count, every deny
first; on 2.14 the rules alone where they select the proxy. --kuma-version picks the behaviour
predicted (2.14 or 3.0, default 3.0; 2.14 also refuses inbounds without kuma.io/service). On 3.0 the
to items of Kuma's kinds are ordered item by item (a MeshService item over a Mesh item), a to item
naming MeshServices by labels selects those of Kuma's MeshServices in the input that carry them, and
one with a sectionName only the outbound SERVICE:PORT to that port. Prints
{"conf": {...}, "origins": {"<field path>": "<policy name>"}, "version": "<Kuma version>"}. Exit status 1 if a
policy or Dataplane is invalid or the proxy is unknown, 2 if a file cannot be read or a flag is wrong.`,
		Example: `  precedent mesh -f config/samples/mesh --kind MeshTimeout --proxy web-v1 --outbound backend -o json
  precedent mesh -f config/samples/mesh --kind MeshTrafficPermission --proxy backend-1 --from web,version=v1 -o json
  precedent mesh -f cmd/precedent/testdata/kuma-rules --kind MeshTrafficPermission.kuma.io --proxy backend-1 --rules --spiffe-id spiffe://default.zone-1.mesh.local/ns/web/sa/web`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.Context(), read, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.kind, "kind", "", "the policy kind: MeshTimeout or MeshTrafficPermission")
	f.StringVar(&o.proxy, "proxy", "", "the Dataplane, NAME or NAMESPACE/NAME")
	f.StringVar(&o.outbound, "outbound", "", "merge the to arrays for the proxy's outbound to SERVICE, or SERVICE:PORT (a port of a MeshService, by number or name: to items with a sectionName select only their port)")
	f.StringVar(&o.from, "from", "", "merge the from arrays for traffic from SERVICE[,TAG=VALUE...]")
	f.BoolVar(&o.rules, "rules", false, "merge Kuma's spec.rules for the proxy's inbound (kuma.io kinds)")
	f.StringVar(&o.spiffeID, "spiffe-id", "", "with --rules: the client's SPIFFE ID")
	f.StringVar(&o.sni, "sni", "", "with --rules: the SNI the client sends")
	f.StringVar(&o.version, "kuma-version", "", "the Kuma version whose behaviour is predicted: 2.14 or 3.0 (default the newest, 3.0)")
	f.StringVarP(&o.output, "output", "o", o.output, "output format: json")
	for _, name := range []string{"kind", "proxy"} {
		_ = cmd.MarkFlagRequired(name)
	}
	cmd.MarkFlagsMutuallyExclusive("outbound", "from")
	cmd.MarkFlagsMutuallyExclusive("outbound", "rules")
	cmd.MarkFlagsOneRequired("outbound", "from", "rules")
	return cmd
}

func (o *meshOptions) run(ctx context.Context, read profile.Read, stdout, stderr io.Writer) error {
	q, err := o.query()
	if err != nil {
		return err
	}
	objs, err := read(ctx, stderr)
	if err != nil {
		return err
	}
	policies, dataplanes, services, err := readMesh(objs, q.kind, q.group, q.version, stderr)
	if err != nil {
		return err
	}
	policies = engine.ResolveServices(policies, services)
	dp, err := findProxy(dataplanes, o.proxy)
	if err != nil {
		return &profile.ExitError{Code: 1, Err: err}
	}
	if o.rules {
		var from *engine.Selector
		if o.from != "" {
			from = &q.target
		}
		return o.printRules(stdout, stderr, q.kind+"."+q.group, q.version, policies, dp, from)
	}
	q.target.Section = section(q.target.Service, q.port, dp.MeshName(), services)
	return o.printMerge(stdout, stderr, q, policies, dp)
}

// meshQuery is what the flags ask for: the policy kind (of group, when not empty), the Kuma version
// predicted, and the direction and target merged.
type meshQuery struct {
	kind, group string
	version     engine.Version
	dir         engine.Direction
	target      engine.Selector
	port        string // --outbound SERVICE:PORT: the port, a number or a name
}

// query checks the flags, before anything is read, and says what they ask for.
func (o *meshOptions) query() (meshQuery, error) {
	var q meshQuery
	if o.output != "json" {
		return q, fmt.Errorf("output format %q is not supported: use -o json", o.output)
	}
	kind, group, err := meshKind(o.kind)
	if err != nil {
		return q, err
	}
	version, err := engine.VersionOf(o.version)
	if err != nil {
		return q, fmt.Errorf("--kuma-version: %w", err)
	}
	if err := o.checkRules(kind, group); err != nil {
		return q, err
	}
	if o.rules {
		group = engine.KumaGroup
	}
	service, port, _ := strings.Cut(o.outbound, ":")
	q = meshQuery{kind: kind, group: group, version: version, dir: engine.To, target: engine.Selector{Service: service}, port: port}
	if o.from != "" {
		q.dir = engine.From
		if q.target, err = parseSource(o.from); err != nil {
			return q, err
		}
	}
	if !o.rules && q.dir == engine.To && kind == engine.KindMeshTrafficPermission {
		return q, errors.New("MeshTrafficPermission has only from arrays: use --from SERVICE[,TAG=VALUE...]")
	}
	return q, nil
}

// checkRules checks the flags that go with --rules against the kind of group.
func (o *meshOptions) checkRules(kind, group string) error {
	if o.rules && o.from != "" && kind != engine.KindMeshTrafficPermission {
		return errors.New("--rules with --from names one client both ways: MeshTrafficPermission only")
	}
	if (o.spiffeID != "" || o.sni != "") && !o.rules {
		return errors.New("--spiffe-id and --sni go with --rules")
	}
	if o.rules && group == engine.PrecedentGroup {
		return fmt.Errorf("--rules: spec.rules is Kuma's shape: use --kind %s.%s", kind, engine.KumaGroup)
	}
	return nil
}

// printMerge prints the merged to or from arrays of proxy dp for q (without --rules), warning on
// stderr of an outbound the proxy does not declare and of from items Kuma 2.14 leaves out.
func (o *meshOptions) printMerge(stdout, stderr io.Writer, q meshQuery, policies []engine.Policy, dp engine.Dataplane) error {
	kind, group, version, dir, target := q.kind, q.group, q.version, q.dir, q.target
	if dir == engine.To {
		if tags, ok := dp.OutboundTo(target.Service); ok {
			target.Tags = tags
		} else {
			fmt.Fprintf(stderr, "Warning: proxy %s declares no outbound to service %s: merged as if it had one\n", o.proxy, target.Service)
		}
	}
	merged := kind
	if group != "" {
		merged = kind + "." + group // Kuma's order for kuma.io kinds, the MADR's for Precedent's
	}
	if dir == engine.From && group != engine.PrecedentGroup && kind == engine.KindMeshTrafficPermission && version == engine.Kuma214 &&
		len(engine.InboundRules(kind+"."+engine.KumaGroup, policies, &dp)) > 0 {
		fmt.Fprintf(stderr, "Warning: %s\n", codeFromLeftOut.Linef("MeshTrafficPermission rules select proxy %s: Kuma %s leaves the from items out there (use --rules --spiffe-id ID --from %s)", o.proxy, version, o.from))
	}
	res := engine.MergeAt(version, merged, policies, dp, dir, target)
	out, err := json.MarshalIndent(simResult{res, version}, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the merged configuration: %w", err)
	}
	_, err = fmt.Fprintf(stdout, "%s\n", out)
	return err
}

// readMesh reads the policies of kind (of group, when not empty), the Dataplanes and Kuma's
// MeshServices among objs; the problems of each object are written to stderr, and any makes an exit
// error.
func readMesh(objs []*unstructured.Unstructured, kind, group string, version engine.Version, stderr io.Writer) ([]engine.Policy, []engine.Dataplane, []engine.ServiceObject, error) {
	var policies []engine.Policy
	var dataplanes []engine.Dataplane
	var services []engine.ServiceObject
	invalid := false
	problem := func(what string, obj *unstructured.Unstructured, err error) {
		fmt.Fprintf(stderr, "%s %s: %v\n", what, objectID(obj.GetNamespace(), obj.GetName()), err)
		invalid = true
	}
	for _, obj := range objs {
		switch obj.GetKind() {
		case engine.KindDataplane:
			dp, err := engine.ParseDataplane(obj)
			if err == nil {
				err = dp.CheckShape(version)
			}
			if err != nil {
				problem("Dataplane", obj, err)
				continue
			}
			dataplanes = append(dataplanes, dp)
		case engine.KindMeshService:
			if obj.GroupVersionKind().Group != engine.KumaGroup {
				continue
			}
			s, err := engine.ParseMeshService(obj)
			if err != nil {
				problem("MeshService", obj, err)
				continue
			}
			services = append(services, s)
		case kind:
			if group != "" && obj.GroupVersionKind().Group != group {
				continue // the same kind of another group (--kind Kind.group)
			}
			p, errs := engine.Parse(obj)
			for _, e := range errs {
				fmt.Fprintf(stderr, "%s %s: %s\n", kind, p.ID(), e.Error())
				invalid = true
			}
			policies = append(policies, p)
		}
	}
	if invalid {
		return nil, nil, nil, &profile.ExitError{Code: 1, Err: errors.New("")}
	}
	return policies, dataplanes, services, nil
}

// section is the sectionName of port (--outbound SERVICE:PORT) of the MeshService service of mesh:
// the name of the port of that number, when a MeshService of the input names it; else port as given.
func section(service, port, mesh string, services []engine.ServiceObject) string {
	for i := range services {
		s := &services[i]
		if s.Name != service || s.MeshName() != mesh {
			continue
		}
		for _, p := range s.Ports {
			if port == strconv.Itoa(int(p.Port)) {
				return p.SectionName()
			}
		}
	}
	return port
}

// printRules prints the effective inbound configuration of dp from Kuma's rules.
// A client named by --from too gets MergePermission's action.
func (o *meshOptions) printRules(stdout, stderr io.Writer, kind string, version engine.Version, policies []engine.Policy, dp engine.Dataplane, from *engine.Selector) error {
	var src *engine.Source
	if o.spiffeID != "" || o.sni != "" {
		src = &engine.Source{SpiffeID: o.spiffeID, SNI: o.sni}
	}
	rules := engine.InboundRules(kind, policies, &dp)
	if len(rules) == 0 && from == nil && strings.HasPrefix(kind, engine.KindMeshTrafficPermission) {
		fmt.Fprintf(stderr, "Warning: no MeshTrafficPermission rules select proxy %s: Kuma applies the from items there (use --from)\n", o.proxy)
	}
	res := engine.MergeInbound(kind, policies, dp, src)
	if from != nil {
		res = engine.MergePermission(version, kind, policies, dp, src, from)
	}
	out, err := json.MarshalIndent(simResult{res, version}, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the merged configuration: %w", err)
	}
	_, err = fmt.Fprintf(stdout, "%s\n", out)
	return err
}

// meshKind accepts the kind in any case, singular or plural, alone (any group) or as Kind.group
// (MeshTimeout.kuma.io: Kuma's own kind; MeshTimeout.policy.precedent.dev: Precedent's).
func meshKind(s string) (kind, group string, err error) {
	name, group, _ := strings.Cut(s, ".")
	for _, k := range []string{engine.KindMeshTimeout, engine.KindMeshTrafficPermission} {
		if strings.EqualFold(name, k) || strings.EqualFold(name, k+"s") {
			switch strings.ToLower(group) {
			case "", engine.KumaGroup, engine.PrecedentGroup:
				return k, strings.ToLower(group), nil
			}
		}
	}
	return "", "", fmt.Errorf("--kind %q: the mesh kinds are %s and %s, alone or as Kind.%s or Kind.%s", s, engine.KindMeshTimeout, engine.KindMeshTrafficPermission, engine.KumaGroup, engine.PrecedentGroup)
}

// parseSource reads SERVICE[,TAG=VALUE...].
func parseSource(s string) (engine.Selector, error) {
	parts := strings.Split(s, ",")
	sel := engine.Selector{Service: parts[0], Tags: map[string]string{engine.ServiceTag: parts[0]}}
	if sel.Service == "" || strings.Contains(sel.Service, "=") {
		return sel, fmt.Errorf("--from %q: write it as SERVICE[,TAG=VALUE...], e.g. web,version=v1", s)
	}
	for _, p := range parts[1:] {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return sel, fmt.Errorf("--from %q: tag %q: write tags as TAG=VALUE", s, p)
		}
		if k == engine.ServiceTag && v != sel.Service {
			return sel, fmt.Errorf("--from %q: the service is %s, not %s", s, sel.Service, v)
		}
		sel.Tags[k] = v
	}
	return sel, nil
}

// findProxy finds the Dataplane named NAME (in any namespace, if unique) or NAMESPACE/NAME.
func findProxy(dataplanes []engine.Dataplane, ref string) (engine.Dataplane, error) {
	ns, name, qualified := strings.Cut(ref, "/")
	if !qualified {
		ns, name = "", ref
	}
	var found []engine.Dataplane
	names := make([]string, 0, len(dataplanes))
	for _, dp := range dataplanes {
		names = append(names, objectID(dp.Namespace, dp.Name))
		if dp.Name == name && (!qualified || dp.Namespace == ns) {
			found = append(found, dp)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		if len(names) == 0 {
			return engine.Dataplane{}, fmt.Errorf("proxy %q not found: the files hold no Dataplane", ref)
		}
		sort.Strings(names)
		if len(names) > 10 {
			names = append(names[:10], fmt.Sprintf("and %d more", len(names)-10))
		}
		return engine.Dataplane{}, fmt.Errorf("proxy %q not found: no Dataplane of that name in the files (Dataplanes: %s)", ref, strings.Join(names, ", "))
	}
	return engine.Dataplane{}, fmt.Errorf("proxy %q is ambiguous: %d Dataplanes of that name; write NAMESPACE/NAME", ref, len(found))
}

func objectID(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}
