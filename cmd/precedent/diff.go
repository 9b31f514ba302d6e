package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/precedent-dev/precedent/internal/diff"
	"github.com/precedent-dev/precedent/internal/finding"
	"github.com/precedent-dev/precedent/internal/manifest"
	"github.com/precedent-dev/precedent/internal/printable"
	"github.com/precedent-dev/precedent/internal/profile"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/warning"
	"github.com/precedent-dev/precedent/profiles"
)

func init() { subcommands = append(subcommands, newDiffCmd) }

type diffOptions struct {
	config     string
	crds       []string
	kind       string
	base, head []string
	files      []string
	ci         ciFlags
	cf         clusterFlags
	read       readFlags
	twins      map[string]bool  // the kind names the tables qualify with their group
	now        func() time.Time // creationTimestamp of the objects -f creates
}

func newDiffCmd() *cobra.Command {
	o := diffOptions{ci: ciFlags{output: "table"}, now: time.Now}
	cmd := &cobra.Command{
		Use:   "diff [--kind KIND] (--base PATH ... --head PATH ... | -f PATH ...) [-o table|wide|json|markdown|sarif] [--fail-on error|warning|CODE,...]",
		Short: "Show what a change set does to the effective policies (for GitOps review)",
		Long: `Compares the effective policies before (base) and after (head) a change set and prints, per
path, the rules added, removed, changed (another value) or moved (the same value from another
policy); for AccessPolicy the decisions per grant (gateway, backend, source, tool); for MeshTimeout
and MeshTrafficPermission the merged fields per proxy and outbound (or source). Without --kind,
every managed kind, AccessPolicy and the mesh kinds, offline or from the cluster alike.

Offline (--base and --head): two manifest trees, e.g. the pull request's base and head checkouts;
values come from the files. Errors are those of "precedent validate -f HEAD", listed the same way;
warnings are those about the objects the change set adds or changes.

Against the cluster (-f without --base): base is the cluster in the kubeconfig, head is the cluster
with the files applied (each object created or replaced by namespace/name, keeping the stored
object's creationTimestamp; nothing deleted), like "kubectl diff". Only what your kubeconfig can
read is compared and shown: objects in namespaces you cannot list are left out (a note says so), so
values are never copied out of namespaces you cannot read. Errors and warnings are those the
webhook would give the files' objects.

Paths given as arguments are the head with --base, else they are -f.

Output: the table (-o wide adds the values before and after), markdown (a PR comment: the tables of
changes, the findings with their codes, and a Mermaid picture of the paths the changes touch), json (the
changes, the error and warning lines, and the findings as validate -o json gives them), sarif (the
findings, as validate -o sarif). A summary line of the findings ("1 error, 2 warnings in 41
objects") comes last on stdout, or on stderr with json and sarif.

Exit status 0: no change; 1: changes; 2: head has errors the webhook would reject (or findings
--fail-on selects: --fail-on warning fails on warnings too), or an input cannot be read.`,
		Example: `  # a pull request's base and head checkouts, as a PR comment
  precedent diff --base cmd/precedent/testdata/diff/base --head cmd/precedent/testdata/diff/head -o markdown
  # the cluster in the kubeconfig with the files applied
  precedent diff -f config/samples/rfc --kind AuthPolicy`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(o.base) > 0 {
				o.head = append(o.head, args...)
			} else {
				o.files = append(o.files, args...)
			}
			return o.run(cmd)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.kind, "kind", "", "policy kind (default: every managed kind), e.g. AuthPolicy, AccessPolicy, MeshTimeout")
	f.StringArrayVar(&o.base, "base", nil, "file or folder of the manifests before the change (repeatable)")
	f.StringArrayVar(&o.head, "head", nil, "file or folder of the manifests after the change (repeatable)")
	f.StringArrayVarP(&o.files, "filename", "f", nil, "file or folder of manifests to apply to the cluster (repeatable)")
	o.ci.add(cmd, "table, wide, json, markdown or sarif")
	f.StringVar(&o.config, "config", "", "file holding the PrecedentConfig to use for both sides (wins over one in the input or the cluster)")
	f.StringArrayVar(&o.crds, "crd", nil, "file or folder of CustomResourceDefinitions whose schema and rules the objects must pass (repeatable; CRDs in the input count too)")
	o.read.add(f)
	cmd.MarkFlagsMutuallyExclusive("base", "filename")
	cmd.MarkFlagsMutuallyExclusive("head", "filename")
	o.cf.add(cmd, true)
	return cmd
}

func (o *diffOptions) run(cmd *cobra.Command) error {
	gate, err := o.ci.check("table", "wide", "json", "markdown", "sarif")
	if err != nil {
		return err
	}
	var override *settings.Settings
	if o.config != "" {
		s, err := readConfigFile(o.config)
		if err != nil {
			return err
		}
		override = &s
	}
	var base, head *input
	var written map[string]bool // "<Kind> <ns>/<name>" of the objects the change set writes
	switch {
	case len(o.base) > 0 || len(o.head) > 0:
		if len(o.base) == 0 || len(o.head) == 0 {
			return &exitError{Code: 2, Err: errors.New("give both --base and --head, or -f alone to compare with the cluster")}
		}
		if slices.Contains(o.base, "-") && slices.Contains(o.head, "-") {
			return &exitError{Code: 2, Err: manifest.ErrStdinTwice}
		}
		if head, err = o.tree(cmd, o.head, override); err != nil {
			return o.unreadable(cmd, err)
		}
		// The first change that adds manifests has no base: every object of head is added.
		if base, err = o.tree(cmd, o.base, override); emptyInput(err) {
			base, err = newInput(head.settings, nil, nil)
		}
		if err != nil {
			return o.unreadable(cmd, err)
		}
		written = changedObjects(base.objects, head.objects)
		head.replaced, head.deleted = changes(base.objects, head.objects)
		for _, u := range head.deleted {
			written[u.GetKind()+" "+profile.NSName(u)] = true
		}
	case len(o.files) > 0:
		var ns string
		o.cf.kind = o.kind
		if base, ns, err = loadCluster(cmd.Context(), &o.cf, override, "", cmd.ErrOrStderr()); err != nil {
			return err
		}
		o.read.stdin = cmd.InOrStdin()
		if head, written, err = applyFiles(base, o.files, o.read.options(), ns, o.now(), override != nil); err != nil {
			return o.unreadable(cmd, err)
		}
	default:
		return &exitError{Code: 2, Err: errors.New("no input: give --base PATH and --head PATH, or -f PATH to compare with the cluster")}
	}

	// A policy not accepted holds nothing, on either side (leaveOutUnaccepted).
	base.leaveOutUnaccepted(o.kind)
	head.leaveOutUnaccepted(o.kind)
	changes, err := diffKinds(base, head, o.kind)
	if err != nil {
		return &exitError{Code: 2, Err: err}
	}
	all, err := head.validate(cmd.Context())
	if err != nil {
		return &exitError{Code: 2, Err: err}
	}
	// What the API server rejects by its CRD (Precedent's own, built in, included) is an error, as
	// validate lists it.
	all = append(append([]finding.Finding(nil), head.rejected...), all...)
	fs := append(append(about(all, written, len(o.files) > 0), newlyUnaccepted(base, head)...), head.skipped...)
	finding.Locate(fs, head.locate)
	finding.Locate(fs, base.locate) // the objects the head deletes are where the base has them
	gated := fs
	fs = o.read.shown(fs)
	var errs, warns []string
	for i := range fs {
		if fs[i].Severity == warning.SeverityError {
			errs = append(errs, fs[i].Text())
		} else {
			warns = append(warns, fs[i].Text())
		}
	}
	r := diff.NewReport(changes, errs, warns)
	r.Findings = append(r.Findings, fs...)

	w := cmd.OutOrStdout()
	o.twins = twins(base, head)
	if err := o.ci.write(cmd, fs, head.read, func() error { return o.render(w, head, &r) }); err != nil {
		return err
	}
	if err := gate.Exit(gated, 2, "head has %d error%s the webhook would reject"); err != nil {
		return err
	}
	if len(r.Changes) > 0 {
		return &exitError{Code: 1, Err: errors.New("")}
	}
	return nil
}

// tree reads one side of an offline diff as validate -f reads its files: the settings from --config,
// else that side's PrecedentConfig, else the defaults; objects checked against the CRDs of that side
// and of --crd.
func (o *diffOptions) tree(cmd *cobra.Command, files []string, override *settings.Settings) (*input, error) {
	src := sources{files: files, crds: o.crds, opts: o.read}
	src.opts.stdin = cmd.InOrStdin()
	src.cluster = o.cf
	return src.loadFiles(cmd.Context(), override)
}

// unreadable writes the findings of an input that cannot be read in the -o format (the report
// holding no change) and is the exit-2 error; other errors are returned as they are.
func (o *diffOptions) unreadable(cmd *cobra.Command, err error) error {
	var u *unreadable
	if !errors.As(err, &u) {
		return err
	}
	shown := o.read.shown(u.findings)
	r := diff.NewReport(nil, nil, nil)
	r.Findings = append(r.Findings, shown...)
	for i := range shown {
		if shown[i].Severity == warning.SeverityError {
			r.Errors = append(r.Errors, shown[i].Text())
		}
	}
	w := cmd.OutOrStdout()
	return o.ci.unreadable(cmd, u, shown, func() error { return o.render(w, nil, &r) })
}

// render writes the report in the -o format of the command's own (markdown, json, the tables);
// the markdown picture of the paths the changes touch needs head (nil: no picture).
func (o *diffOptions) render(w io.Writer, head *input, r *diff.Report) error {
	switch o.ci.output {
	case "markdown":
		if head != nil {
			var err error
			if r.Diagram, err = touchedDiagram(head, r.Changes); err != nil {
				return err
			}
		}
		qualifyChanges(r.Changes, o.twins)
		return diff.Markdown(w, r)
	case "json": // the group in a field of its own
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	qualifyChanges(r.Changes, o.twins)
	return diff.Table(w, r, o.ci.output == "wide")
}

// diffKinds compares base and head for one kind (by --kind) or for every kind, through the
// registered profiles (each compares its own kinds; see profile.Profile.Diff).
func diffKinds(base, head *input, kind string) ([]diff.Change, error) {
	if kind != "" {
		k, err := resolveKind(head.registry, kind, base, head)
		switch {
		case err == nil:
			kind = k.GVK.Kind + "." + k.GVK.Group // the one kind of that name the inputs hold
		case strings.Contains(err.Error(), "ambiguous"):
			return nil, fmt.Errorf("--kind %w", err)
		}
	}
	b, h := base.offline(), head.offline()
	var out []diff.Change
	matched := false
	for _, p := range profiles.All() {
		changes, ok, err := p.Diff(b, h, kind)
		if err != nil {
			return nil, err
		}
		matched = matched || ok
		groupChanges(changes, p, head.registry)
		out = append(out, changes...)
	}
	if !matched && kind != "" {
		return nil, fmt.Errorf("--kind %q is not a managed policy kind", kind)
	}
	return out, nil
}

// objectKey identifies an object for create-or-replace: group, kind, namespace, name.
type objectKey struct {
	gk        schema.GroupKind
	namespace string
	name      string
}

func keyOf(u *unstructured.Unstructured) objectKey {
	return objectKey{u.GroupVersionKind().GroupKind(), u.GetNamespace(), u.GetName()}
}

// applyFiles returns the cluster base with the files' objects created or replaced by namespace/name
// (objects without a namespace land in ns, else default), as the API server would store them: a
// replaced object keeps the stored creationTimestamp, a created one is created now. A PrecedentConfig
// among the files gives the head its settings unless configGiven (--config, for both sides). written
// names the objects the files create or change: one as stored (asStored) changes nothing, so its
// findings are not the change set's.
func applyFiles(base *input, files []string, opts manifest.Options, ns string, now time.Time, configGiven bool) (*input, map[string]bool, error) {
	objs, skipped, err := read(files, opts)
	if err != nil {
		return nil, nil, err
	}
	// A PrecedentConfig among the files is the head's settings (as applying it would make them),
	// unless --config says otherwise for both sides.
	s := base.settings
	for _, o := range objs {
		if o.GroupVersionKind().GroupKind() != settings.GVK.GroupKind() || configGiven {
			continue
		}
		cs, errs := settings.Decode(o.Unstructured)
		if len(errs) > 0 {
			return nil, nil, &exitError{Code: 2, Err: fmt.Errorf("%s: document %d: PrecedentConfig %s: %w", o.File, o.Index, printable.String(o.GetName()), errs.ToAggregate())}
		}
		s = cs
	}
	if ns == "" {
		ns = "default"
	}
	created := newerThanAll(base.objects, now)
	reg := s.Registry()
	index := make(map[objectKey]int, len(base.objects))
	out := append([]*unstructured.Unstructured(nil), base.objects...)
	for i, u := range out {
		index[keyOf(u)] = i
	}
	written := map[string]bool{}
	isNew := map[*unstructured.Unstructured]bool{}
	replaced := map[*unstructured.Unstructured]*unstructured.Unstructured{}
	for _, o := range objs {
		u := o.Unstructured
		if u.GetNamespace() == "" && u.GetKind() != "GatewayClass" && u.GetKind() != "Namespace" && u.GroupVersionKind().GroupKind() != settings.GVK.GroupKind() {
			u.SetNamespace(ns)
		}
		if i, ok := index[keyOf(u)]; ok {
			stored := out[i]
			u.SetCreationTimestamp(stored.GetCreationTimestamp())
			u.SetUID(stored.GetUID())
			if !asStored(stored, u, reg) {
				written[u.GetKind()+" "+profile.NSName(u)] = true
			}
			out[i] = u
			replaced[u] = stored
			continue
		}
		written[u.GetKind()+" "+profile.NSName(u)] = true
		u.SetCreationTimestamp(created)
		index[keyOf(u)] = len(out)
		out = append(out, u)
		isNew[u] = true
	}
	head, err := newInput(s, out, nil)
	if err != nil {
		return nil, nil, err
	}
	head.read, head.placed = len(objs), placements(objs)
	head.skipped = skipped
	head.undated = newInChangeSet(isNew)
	head.replaced = replaced
	return head, written, nil
}

// newerThanAll is the creationTimestamp of the objects a change set creates: now, to the second as
// the API server keeps it, or a second after the newest object of the cluster when that is not
// older (created within the same second): new objects are newer than every stored one.
func newerThanAll(stored []*unstructured.Unstructured, now time.Time) metav1.Time {
	t := now.UTC().Truncate(time.Second)
	for _, u := range stored {
		if c := u.GetCreationTimestamp().Time; !c.Before(t) {
			t = c.Add(time.Second)
		}
	}
	return metav1.NewTime(t)
}

// changedObjects names ("<Kind> <ns>/<name>") the objects of head that base lacks or holds
// otherwise.
func changedObjects(base, head []*unstructured.Unstructured) map[string]bool {
	stored := make(map[objectKey]*unstructured.Unstructured, len(base))
	for _, u := range base {
		stored[keyOf(u)] = u
	}
	out := map[string]bool{}
	for _, u := range head {
		if b, ok := stored[keyOf(u)]; !ok || !reflect.DeepEqual(b.Object, u.Object) {
			out[u.GetKind()+" "+profile.NSName(u)] = true
		}
	}
	return out
}

// changes are what turns base into head: the objects of head that replace one of base of the same
// group, kind, namespace and name, otherwise held (each with the one it replaces), and the objects of
// base that head lacks.
func changes(base, head []*unstructured.Unstructured) (map[*unstructured.Unstructured]*unstructured.Unstructured, []*unstructured.Unstructured) {
	stored := make(map[objectKey]*unstructured.Unstructured, len(base))
	for _, u := range base {
		stored[keyOf(u)] = u
	}
	replaced := map[*unstructured.Unstructured]*unstructured.Unstructured{}
	for _, u := range head {
		k := keyOf(u)
		if b, ok := stored[k]; ok {
			if !reflect.DeepEqual(b.Object, u.Object) {
				replaced[u] = b
			}
			delete(stored, k)
		}
	}
	var deleted []*unstructured.Unstructured
	for _, u := range base {
		if _, ok := stored[keyOf(u)]; ok {
			deleted = append(deleted, u)
		}
	}
	return replaced, deleted
}

// about keeps the warnings (and, with errorsToo, the errors) about the named objects ("<Kind>
// <ns>/<name>"); the other errors are kept.
func about(fs []finding.Finding, objects map[string]bool, errorsToo bool) []finding.Finding {
	var out []finding.Finding
	for _, f := range fs {
		if (f.Severity == warning.SeverityError && !errorsToo) || objects[f.Object.Subject()] {
			out = append(out, f)
		}
	}
	return out
}
