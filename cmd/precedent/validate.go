package main

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/precedent-dev/precedent/internal/finding"
	"github.com/precedent-dev/precedent/internal/profile"
	"github.com/precedent-dev/precedent/profiles"
)

func init() { subcommands = append(subcommands, newValidateCmd) }

func newValidateCmd() *cobra.Command {
	src := sources{review: true} // the review reads a source of its own: no inventory
	ci := ciFlags{output: "text"}
	cmd := &cobra.Command{
		Use:   "validate [-f] PATH [PATH ...] [--config FILE] [--crd PATH ...] [-o text|json|sarif] [--fail-on error|warning|CODE,...]",
		Short: "Check every policy in the files against the topology in the files, with the webhook's rules",
		Long: `Prints one line per error, "<Kind> <ns>/<name>: <field path>: <reason>", and warnings starting
with "Warning: ", then notes (what the writes do, not what is wrong) starting with "Note: ", then a
summary line ("3 errors, 2 warnings in 41 objects"). Every line carries a code (PRC-E…, PRC-W…,
PRC-N…; see docs/codes.md). Paths are given with -f or as arguments (- for standard input); each
must exist and hold at least one object. A folder holding a kustomization.yaml is built as kubectl
kustomize builds it (--no-kustomize reads its files); files in folders that hold no Kubernetes
object (Helm templates, values files, workflows) are skipped with a note; hidden folders, the
paths of --exclude and those a .precedentignore names are left out; see docs/ci-input.md.

-o json prints {"findings": [{"code", "severity", "object": {"apiVersion", "kind", "namespace",
"name"}, "field", "message", "affected", "file", "line"}], "summary": {"errors", "warnings", "notes",
"objects"}}; -o sarif prints a SARIF 2.1.0 log for code scanning (one result per finding, located at
the object's first line). With json and sarif the summary line goes to stderr.

Exit status 0: nothing --fail-on selects; 1: errors, or findings --fail-on selects; 2: an input
cannot be read or parsed (a path that does not exist, an input with no object) or --config is
invalid.

What the API server rejects comes first: objects of a kind whose CustomResourceDefinition is in the
input (or given with --crd) are pruned, defaulted and validated against the CRD's OpenAPI schema and
x-kubernetes-validations with the apiextensions-apiserver's own validators; an object it rejects is
listed and left out of Precedent's checks. Then every policy of a managed kind is checked with the
webhook's rules, against the topology and the other policies in the files.

Settings (managed kinds, unset switch, ...): --config FILE wins, else the PrecedentConfig in the input,
else the defaults.

` + uncheckedHelp,
		Example: `  precedent validate config/samples/rfc
  precedent validate -f config/samples/envoy-gateway -o sarif --fail-on warning`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			src.files = append(src.files, args...)
			if len(src.files) == 0 {
				return &exitError{Code: 2, Err: errors.New("no input: give one or more paths (FILE|DIR, or -f FILE|DIR)")}
			}
			gate, err := ci.check("text", "json", "sarif")
			if err != nil {
				return err
			}
			o, _, err := src.load(cmd, "")
			if u := (*unreadable)(nil); errors.As(err, &u) {
				return ci.unreadable(cmd, u, src.opts.shown(u.findings), nil)
			}
			if err != nil {
				return err
			}
			fs, err := o.validate(cmd.Context())
			if err != nil {
				return &exitError{Code: 2, Err: err}
			}
			fs = append(append(append(o.rejected, fs...), o.unchecked...), o.skipped...)
			finding.Locate(fs, o.locate)
			if err := ci.write(cmd, src.opts.shown(fs), o.read, nil); err != nil {
				return err
			}
			if err := gate.Exit(fs, 1, "%d error%s"); err != nil {
				return err
			}
			return nil
		},
	}
	src.addOffline(cmd)
	cmd.Flags().StringVarP(&src.opts.namespace, "namespace", "n", "", "namespace of the objects of -f that have none, as kubectl apply -n sets it")
	ci.add(cmd, "text, json or sarif")
	cmd.Flags().BoolVar(&src.unsetOff, "unset-disabled", false, "check as if the cluster had switched unset off")
	return cmd
}

// validate runs the webhook's review of every policy of the input, each as a create against the
// topology and the other objects of the input; of a diff's head, the objects it changes as updates
// of the base's version, and those it deletes as deletes.
func (o *input) validate(ctx context.Context) ([]finding.Finding, error) {
	session, err := profiles.NewSession(ctx, profiles.Changes{Objects: o.objects, Old: o.replaced, Deleted: o.deleted, Converted: o.converted, Typed: o.typed}, o.settings)
	if err != nil {
		return nil, err
	}
	defer session.Close()
	fs, err := session.Findings()
	if err != nil {
		return nil, err
	}
	more, err := o.orderWarnings(ctx, session)
	return append(fs, more...), err
}

// offline is the input as the profiles read it.
func (o *input) offline() *profile.Offline {
	return &profile.Offline{Objects: o.objects, Settings: o.settings, Registry: o.registry, Inv: o.inv, Cond: o.evaluator(), Snapshot: o.snapshot, Graph: o.topology()}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
