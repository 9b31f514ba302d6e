package main

import (
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/precedent-dev/precedent/printable"
	"github.com/precedent-dev/precedent/validate"
)

func init() { subcommands = append(subcommands, newValidateCmd) }

// profileCheck is the offline side of a profile whose kinds are not in the registry (access, mesh):
// which objects it checks, and the check of all of them in the input, returning lines already in
// the contract format. The files of those profiles register one each (validate_profiles.go).
type profileCheck struct {
	claims func(gk schema.GroupKind) bool
	check  func(o *input) (errs, warns []string)
}

// profileChecks are registered by the files of the other profiles.
var profileChecks []profileCheck

// otherProfile reports whether the objects of gk are checked by one of the profileChecks.
func otherProfile(gk schema.GroupKind) bool {
	for _, p := range profileChecks {
		if p.claims(gk) {
			return true
		}
	}
	return false
}

func newValidateCmd() *cobra.Command {
	var src sources
	cmd := &cobra.Command{
		Use:   "validate -f PATH [-f PATH ...] [--config FILE] [--crd PATH ...]",
		Short: "Check every policy in the files against the topology in the files, with the webhook's rules",
		Long: `Prints one line per error, "<Kind> <ns>/<name>: <field path>: <reason>", and warnings starting
with "Warning: ". Exit status 1 if any error, 2 if a file cannot be read or parsed (or --config is
invalid).

What the API server rejects comes first: objects of a kind whose CustomResourceDefinition is in the
input (or given with --crd) are pruned, defaulted and validated against the CRD's OpenAPI schema and
x-kubernetes-validations with the apiextensions-apiserver's own validators; an object it rejects is
listed and left out of Precedent's checks. Then every policy of a managed kind is checked with the
webhook's rules, against the topology and the other policies in the files.

Settings (managed kinds, unset switch, ...): --config FILE wins, else the PrecedentConfig in the input,
else the defaults.

` + uncheckedHelp,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(src.files) == 0 {
				return &exitError{code: 2, err: errors.New("no input: give one or more -f FILE|DIR")}
			}
			o, _, err := src.load(cmd, "")
			if err != nil {
				return err
			}
			errs, warns := o.validate()
			for _, p := range profileChecks {
				e, w := p.check(o)
				errs, warns = append(errs, e...), append(warns, w...)
			}
			errs = append(o.rejected, errs...)
			warns = append(warns, o.unchecked...)
			report(cmd.OutOrStdout(), errs, warns)
			if len(errs) > 0 {
				return &exitError{code: 1, err: fmt.Errorf("%d error%s", len(errs), plural(len(errs)))}
			}
			return nil
		},
	}
	src.addOffline(cmd)
	cmd.Flags().BoolVar(&src.unsetOff, "unset-disabled", false, "check as if the cluster had switched unset off")
	return cmd
}

// validate runs the webhook's review over every policy of every managed kind in the input, each
// against the topology and the other policies of its kind.
func (o *input) validate() (errs, warns []string) {
	for _, k := range o.registry.Kinds() {
		items := o.inv.Items(k)
		if len(items) == 0 {
			continue
		}
		snap := o.snapshot(k)
		sort.SliceStable(items, func(i, j int) bool { return items[i].Policy.Ref.String() < items[j].Policy.Ref.String() })
		for _, it := range items {
			before := snap.Without(it.Policy.Ref)
			out := validate.Review(before, it.Object, o.settings, o.cond)
			errs = append(errs, lines(k.GVK.Kind, it.Object, out.Errs)...)
			for _, w := range out.Warnings {
				warns = append(warns, fmt.Sprintf("%s %s: %s", k.GVK.Kind, nsName(it.Object), w))
			}
		}
	}
	return errs, warns
}

func lines(kind string, obj *unstructured.Unstructured, errs field.ErrorList) []string {
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		out = append(out, fmt.Sprintf("%s %s: %s", kind, nsName(obj), e.Error()))
	}
	return out
}

func nsName(u *unstructured.Unstructured) string {
	if u.GetNamespace() == "" {
		return u.GetName()
	}
	return u.GetNamespace() + "/" + u.GetName()
}

// report prints one line per error and per warning, each escaped: names, rule ids and values come
// from the objects, and a line must stay one line.
func report(w io.Writer, errs, warns []string) {
	for _, e := range errs {
		fmt.Fprintln(w, printable.String(e))
	}
	for _, wn := range warns {
		fmt.Fprintln(w, "Warning: "+printable.String(wn))
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
