package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/precedent-dev/precedent/internal/printable"
	"github.com/precedent-dev/precedent/internal/profile"
	"github.com/precedent-dev/precedent/profiles"
)

func init() { subcommands = append(subcommands, newValidateCmd) }

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
				return &exitError{Code: 2, Err: errors.New("no input: give one or more -f FILE|DIR")}
			}
			o, _, err := src.load(cmd, "")
			if err != nil {
				return err
			}
			errs, warns, err := o.validate(cmd.Context())
			if err != nil {
				return &exitError{Code: 2, Err: err}
			}
			errs = append(o.rejected, errs...)
			warns = append(warns, o.unchecked...)
			report(cmd.OutOrStdout(), errs, warns)
			if len(errs) > 0 {
				return &exitError{Code: 1, Err: fmt.Errorf("%d error%s", len(errs), plural(len(errs)))}
			}
			return nil
		},
	}
	src.addOffline(cmd)
	cmd.Flags().BoolVar(&src.unsetOff, "unset-disabled", false, "check as if the cluster had switched unset off")
	return cmd
}

// validate runs the webhook's review of every policy of the input, each as a create against the
// topology and the other objects of the input.
func (o *input) validate(ctx context.Context) (errs, warns []string, err error) {
	if errs, warns, err = profiles.Review(ctx, o.objects, o.settings); err != nil {
		return nil, nil, err
	}
	more, err := o.orderWarnings(ctx)
	return errs, append(warns, more...), err
}

// offline is the input as the profiles read it.
func (o *input) offline() *profile.Offline {
	return &profile.Offline{Objects: o.objects, Settings: o.settings, Registry: o.registry, Inv: o.inv, Cond: o.cond, Snapshot: o.snapshot, Graph: o.graph}
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
