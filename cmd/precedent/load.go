package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/precedent-dev/precedent/cel"
	"github.com/precedent-dev/precedent/internal/crdcheck"
	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/finding"
	"github.com/precedent-dev/precedent/internal/inventory"
	"github.com/precedent-dev/precedent/internal/manifest"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/printable"
	"github.com/precedent-dev/precedent/internal/profile"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/state/memory"
	"github.com/precedent-dev/precedent/internal/topology"
	"github.com/precedent-dev/precedent/internal/warning"
	"github.com/precedent-dev/precedent/mutate"
	"github.com/precedent-dev/precedent/profiles"
)

// input is what a command works on: the objects of the files or of the cluster, sorted.
type input struct {
	settings settings.Settings
	registry *policy.Registry
	inv      *inventory.Inventory
	objects  []*unstructured.Unstructured
	graph    *topology.Graph
	cond     *cel.Evaluator
	// rejected are the errors of the objects the API server would reject by their CRD's own rules;
	// those objects are left out of the input.
	rejected []finding.Finding
	// skipped are the notes naming the files of the folders of -f that hold no object.
	skipped []finding.Finding
	// unchecked are warnings naming policies of kinds not managed.
	unchecked []finding.Finding
	// unaccepted are the notes naming the policies the views leave out because the reconciler does
	// not accept them, and left those policies (leaveOutUnaccepted).
	unaccepted []finding.Finding
	left       []leftOut
	// read is the number of objects read from the files (0 from the cluster); placed are where those
	// objects start (without the objects), indexed into at (each object, and the first of each
	// kind) on the first locate: after the review, whose peak of memory the index need not add to.
	read   int
	placed []placement
	at     map[finding.Object]position
	// undated, when set, says which objects have no known creation time (nil: those without
	// creationTimestamp; see undatedOf).
	undated func(*unstructured.Unstructured) bool
	// replaced maps the objects a diff's change set updates to the base's version each replaces,
	// and deleted are the base's objects it deletes: validate reviews those writes as the updates
	// and deletes they are (nil for validate -f, where every object is a create).
	replaced map[*unstructured.Unstructured]*unstructured.Unstructured
	deleted  []*unstructured.Unstructured
	// converted are the Gateway API objects the input's check converted to their typed form
	// (validate's: newReviewInput), for the review's source.
	converted map[*unstructured.Unstructured]runtime.Object
	// typed are the Gateway API objects of the input that the review reads typed only, kept only
	// so (validate's: newReviewInput), for the review's source; they are not in objects.
	typed []memory.Typed
}

// position is where an object starts in the input.
type position struct {
	file string
	line int
}

// locate says where obj starts in the files; a kind without name is located at its first object.
func (o *input) locate(obj finding.Object) (string, int, bool) {
	if o.placed != nil {
		o.at, o.placed = place(o.placed), nil
	}
	p, ok := o.at[obj]
	return p.file, p.line, ok
}

// placement is where an object of the files starts: what place indexes, without the object (the
// review need not keep the decoded objects it reads typed only to locate findings).
type placement struct {
	obj finding.Object
	at  position
}

// placements are the placements of the objects of the files.
func placements(objs []manifest.Object) []placement {
	out := make([]placement, len(objs))
	for i, m := range objs {
		out[i] = placement{finding.ObjectOf(m.Unstructured), position{m.File, m.Line}}
	}
	return out
}

// place records where the objects of the files start.
func place(objs []placement) map[finding.Object]position {
	at := make(map[finding.Object]position, len(objs))
	for _, m := range objs {
		obj, p := m.obj, m.at
		if _, dup := at[obj]; !dup {
			at[obj] = p
		}
		kind := finding.Object{APIVersion: obj.APIVersion, Kind: obj.Kind}
		if _, dup := at[kind]; !dup {
			at[kind] = p
		}
	}
	return at
}

// sources say where a command's objects and settings come from: the files of -f, else the cluster
// of the kubeconfig; the settings from --config, else the input's PrecedentConfig, else (cluster)
// the cluster's PrecedentConfig named cluster, else the defaults.
type sources struct {
	files    []string
	config   string
	crds     []string
	cluster  clusterFlags
	unsetOff bool
	opts     readFlags
	// review says the command reviews the files over a source of its own (validate): it reads no
	// inventory, and none is built.
	review bool
}

// addOffline registers -f, --config and --crd.
func (f *sources) addOffline(cmd *cobra.Command) {
	cmd.Flags().StringArrayVarP(&f.files, "filename", "f", nil, "file or folder of manifests (repeatable)")
	cmd.Flags().StringVar(&f.config, "config", "", "file holding the PrecedentConfig to use (wins over one in the input or the cluster)")
	cmd.Flags().StringArrayVar(&f.crds, "crd", nil, "file or folder of CustomResourceDefinitions whose schema and rules the objects must pass (repeatable; CRDs in the input count too)")
	f.opts.add(cmd.Flags())
}

// namespace is the namespace a TYPE/NAME target or a NAME policy is in: -n, else (reading the
// cluster) the kubeconfig context's namespace, else "default", as kubectl resolves it.
func (f *sources) namespace() (string, error) {
	if ns := f.cluster.namespaceFlag(); ns != "" || len(f.files) > 0 {
		if ns == "" {
			ns = "default"
		}
		return ns, nil
	}
	if f.cluster.empty() {
		return "default", nil
	}
	ns, _, err := f.cluster.clientConfig().Namespace()
	return ns, err
}

// load reads the files, or the cluster when there are none. scope is the namespace a --target
// lives in ("" when none): it is listed even when the caller may not list every namespace. The
// namespace filter returned is "" (all) when reading files or when scope is set.
func (f *sources) load(cmd *cobra.Command, scope string) (*input, string, error) {
	var override *settings.Settings
	if f.config != "" {
		s, err := readConfigFile(f.config)
		if err != nil {
			return nil, "", err
		}
		override = &s
	}
	if len(f.files) > 0 {
		if f.opts.stdin == nil {
			f.opts.stdin = cmd.InOrStdin()
		}
		o, err := f.loadFiles(cmd.Context(), override)
		return o, "", err
	}
	if len(f.crds) > 0 {
		return nil, "", &exitError{Code: 2, Err: errors.New("--crd needs -f: the cluster applies its own CRDs")}
	}
	return loadCluster(cmd.Context(), &f.cluster, override, scope, cmd.ErrOrStderr())
}

// loadFiles reads the files (manifest.Load: folders, kustomizations, standard input), takes the
// settings from override, else from the input, else the defaults, admits the objects as the API
// server's object-meta validation would (names, namespaces with -n, duplicates), checks custom
// objects against the CRDs of the input and of --crd (leaving out those the API server would
// reject), applies the static defaults the API server would apply, and builds the topology
// (the objects taken through those steps a part at a time: newCheckedInput, newReviewInput).
// Unreadable input is an exit-2 error (*unreadable, whose findings say where).
func (f *sources) loadFiles(ctx context.Context, override *settings.Settings) (*input, error) {
	objs, skipped, err := read(f.files, f.opts.options())
	if err != nil {
		return nil, err
	}
	s := settings.Defaults()
	var crds []*unstructured.Unstructured
	us := make([]sourced, 0, len(objs))
	for _, o := range objs {
		switch {
		case o.GroupVersionKind().GroupKind() == settings.GVK.GroupKind():
			// The cluster's settings travel with the manifests: managed kinds, unset switch, ...
			cs, errs := settings.Decode(o.Unstructured)
			if len(errs) > 0 {
				return nil, &exitError{Code: 2, Err: fmt.Errorf("%s: document %d: PrecedentConfig %s: %w", o.File, o.Index, printable.String(o.GetName()), errs.ToAggregate())}
			}
			s = cs
		case crdcheck.IsCRD(o.Unstructured):
			crds = append(crds, o.Unstructured)
		default:
			us = append(us, sourced{o.Unstructured, o.File, o.Line})
		}
	}
	crds, err = f.allCRDs(crds)
	if err != nil {
		return nil, err
	}
	if override != nil {
		s = *override
	}
	if f.unsetOff {
		s.UnsetEnabled = false
	}
	checker, err := crdcheck.WithBuiltin(crds)
	if err != nil {
		return nil, &exitError{Code: 2, Err: err}
	}
	admitted, rejected := admit(us, f.defaultNamespace(), checker, s.Registry())
	var o *input
	if f.review {
		o, err = newReviewInput(ctx, s, admitted, checker)
	} else {
		o, err = newCheckedInput(ctx, s, admitted, checker)
	}
	if err != nil {
		return nil, err
	}
	o.rejected = append(rejected, o.rejected...)
	o.skipped = skipped
	o.read, o.placed = len(objs), placements(objs)
	finding.Locate(o.rejected, o.locate)
	return o, nil
}

// defaultNamespace is the namespace of the objects of -f that have none: -n, "" when not given.
func (f *sources) defaultNamespace() string {
	if f.opts.namespace != "" {
		return f.opts.namespace
	}
	return f.cluster.namespaceFlag()
}

// allCRDs returns the CRDs of the input, then those of --crd, that the objects are checked
// against beside Precedent's own (built in), a later one winning for its kind
// (crdcheck.WithBuiltin), so a CRD the user gives replaces the built-in one. --crd takes files and
// folders (recursively, such as config/crd) and skips what is not a CRD there
// (kustomization.yaml, ...).
func (f *sources) allCRDs(input []*unstructured.Unstructured) ([]*unstructured.Unstructured, error) {
	crds := input
	if len(f.crds) == 0 {
		return crds, nil
	}
	more, err := manifest.Read(f.crds...)
	if err != nil {
		return nil, &exitError{Code: 2, Err: fmt.Errorf("--crd: %w", err)}
	}
	n := len(crds)
	for _, o := range more {
		if crdcheck.IsCRD(o.Unstructured) {
			crds = append(crds, o.Unstructured)
		}
	}
	if len(crds) == n {
		return nil, &exitError{Code: 2, Err: fmt.Errorf("--crd %s: no CustomResourceDefinition found", strings.Join(f.crds, ", "))}
	}
	return crds, nil
}

// readConfigFile reads the one PrecedentConfig of a file; an unreadable or invalid one is an
// exit-2 error with the field paths.
func readConfigFile(path string) (settings.Settings, error) {
	objs, err := manifest.Read(path)
	if err != nil {
		return settings.Settings{}, &exitError{Code: 2, Err: fmt.Errorf("--config: %w", err)}
	}
	var found []manifest.Object
	for _, o := range objs {
		if o.GroupVersionKind().GroupKind() == settings.GVK.GroupKind() {
			found = append(found, o)
		}
	}
	if len(found) != 1 {
		return settings.Settings{}, &exitError{Code: 2, Err: fmt.Errorf("--config %s: want one %s, found %d", path, settings.GVK.Kind, len(found))}
	}
	s, errs := settings.Decode(found[0].Unstructured)
	if len(errs) > 0 {
		return settings.Settings{}, &exitError{Code: 2, Err: fmt.Errorf("--config %s: PrecedentConfig %s: %w", path, printable.String(found[0].GetName()), errs.ToAggregate())}
	}
	return s, nil
}

// newInput applies the static defaults the API server would apply (for configured kinds whose
// schema lacks them), sorts the objects and builds the topology. Unconvertible Gateway API objects
// are an exit-2 error.
func newInput(s settings.Settings, objs []*unstructured.Unstructured, srcs []string) (*input, error) {
	reg := s.Registry()
	if err := applyDefaults(reg, objs); err != nil {
		return nil, err
	}
	manifest.Share(objs) // defaulted: the last write to the objects' fields; before the views hold them
	return builtInput(s, reg, objs, srcs)
}

// check checks the objects against their CRDs (on every CPU at once), and returns those the API
// server would accept, where each comes from (when srcs) and the errors of the others.
func check(ctx context.Context, checker *crdcheck.Checker, objs []sourced, srcs bool) ([]*unstructured.Unstructured, []string, []finding.Finding) {
	toCheck := make([]*unstructured.Unstructured, len(objs))
	for i, o := range objs {
		toCheck[i] = o.u
	}
	checked := checker.CheckAll(ctx, toCheck)
	kept := make([]*unstructured.Unstructured, 0, len(objs))
	var keptSrcs []string
	var rejected []finding.Finding
	for i, o := range objs {
		if errs := checked[i]; len(errs) > 0 {
			rejected = append(rejected, coded(finding.Errors(o.u, errs, nil), schemaCode, errs)...)
			continue
		}
		kept = append(kept, o.u)
		if srcs {
			keptSrcs = append(keptSrcs, fmt.Sprintf("%s:%d", o.file, o.line))
		}
	}
	return kept, keptSrcs, rejected
}

// applyDefaults applies to the objects of configured kinds the static defaults the API server
// would apply (for kinds whose schema lacks them); one that cannot be applied is an exit-2 error.
func applyDefaults(reg *policy.Registry, objs []*unstructured.Unstructured) error {
	for _, u := range objs {
		gk := u.GroupVersionKind().GroupKind()
		if p := profiles.For(gk, reg); p != nil {
			if err := mutate.Apply(u, p.Default(gk, u, reg)); err != nil {
				return &exitError{Code: 2, Err: err}
			}
		}
	}
	return nil
}

// builtInput is the input of objects defaulted and shared: their inventory built, unconvertible
// Gateway API objects an exit-2 error, and the settings' CEL cost limit checked.
func builtInput(s settings.Settings, reg *policy.Registry, objs []*unstructured.Unstructured, srcs []string) (*input, error) {
	inv := inventory.Build(reg, objs, srcs)
	if len(inv.Problems) > 0 {
		return nil, &exitError{Code: 2, Err: errors.Join(inv.Problems...)}
	}
	if _, err := cel.New(s.CELCostLimit); err != nil { // the settings' cost limit, checked now
		return nil, err
	}
	return &input{settings: s, registry: reg, inv: inv, objects: objs}, nil
}

// topology is the input's topology graph, built on first use: validate reviews over a source of its
// own and never needs it.
func (o *input) topology() *topology.Graph {
	if o.graph == nil {
		o.graph = topology.Build(o.inv.Topology)
	}
	return o.graph
}

// evaluator is the input's CEL evaluator (for when conditions), made on first use.
func (o *input) evaluator() *cel.Evaluator {
	if o.cond == nil {
		o.cond, _ = cel.New(o.settings.CELCostLimit) // newInput checked the limit
	}
	return o.cond
}

// resolveAny finds the managed kind named by --kind; an ambiguous or unmanaged name is an exit-2
// error.
func (o *input) resolveAny(name string) (policy.Kind, error) {
	k, err := resolveKind(o.registry, name, o)
	if err != nil {
		if own := ownKindError(name); own != nil {
			return policy.Kind{}, own
		}
		return policy.Kind{}, &exitError{Code: 2, Err: fmt.Errorf("--kind %w", err)}
	}
	return k, nil
}

// ownKindError is the exit-2 error for a kind that a profile owns (AccessPolicy, the mesh kinds)
// and that has no effective policy per Gateway API path: it names the command that shows it. nil
// when no profile owns a kind of that name.
func ownKindError(name string) error {
	gk := ownKind(name)
	if gk == nil {
		return nil
	}
	see := "precedent diff"
	for _, p := range profiles.All() {
		if s, ok := p.(profiles.Simulator); ok && slices.Contains(p.Own(), *gk) {
			see = "precedent " + s.Simulator(nil).Name() + " and precedent diff"
		}
	}
	return &exitError{Code: 2, Err: fmt.Errorf("--kind %s.%s has no effective policy per Gateway API path: its model decides per request or per proxy; see %s", gk.Kind, gk.Group, see)}
}

// ownKind is the kind a profile owns (whatever the settings say) that name names, or nil.
func ownKind(name string) *schema.GroupKind {
	for _, p := range profiles.All() {
		for _, gk := range p.Own() {
			if profile.Names(name, gk) {
				return &gk
			}
		}
	}
	return nil
}

// resolve is resolveAny for the commands that read the engine's snapshots (explain): a kind whose
// model folds elsewhere is an exit-2 error.
func (o *input) resolve(name string) (policy.Kind, error) {
	k, err := o.resolveAny(name)
	if err != nil {
		return k, err
	}
	if !k.Effective() {
		return policy.Kind{}, &exitError{Code: 2, Err: fmt.Errorf("--kind %s.%s is a mesh kind: it has no effective policy per Gateway API path; see precedent mesh", k.GVK.Kind, k.GVK.Group)}
	}
	return k, nil
}

// notes prints, for the commands that do not validate, what was left out of the input and why
// (the notes only when show).
func (o *input) notes(w io.Writer, show bool) {
	var fs []finding.Finding
	for i := range o.rejected {
		fs = append(fs, finding.Input(codeLeftOut, o.rejected[i].File, o.rejected[i].Line, "left out, the API server would reject it: "+o.rejected[i].Text()))
	}
	fs = append(append(append(fs, o.skipped...), o.unchecked...), o.unaccepted...)
	if !show {
		fs = finding.Without(fs, warning.SeverityNote)
	}
	finding.WriteText(w, fs)
}

// snapshot returns the snapshot of one kind over every policy of that kind that could be read.
func (o *input) snapshot(k policy.Kind) *effective.Snapshot {
	return effective.NewSnapshot(k, o.topology(), o.inv.Views(k), o.evaluator())
}

// noteUnnamed says which route rules got generated names (nothing unless show), of the routes of
// namespace ns ("": every namespace), as a namespaced query shows those routes only.
func (o *input) noteUnnamed(w io.Writer, show bool, ns string) {
	if !show {
		return
	}
	for _, t := range sortedRouteTargets(o.topology()) {
		if ns != "" && t.Namespace != ns {
			continue
		}
		r, _ := o.topology().Route(t)
		for _, n := range r.Unnamed {
			fmt.Fprintln(w, "Note: "+codeUnnamedRule.Linef("%s %s has an unnamed rule, shown as %q", r.Kind, printable.String(r.Key.String()), n))
		}
	}
}
