package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/internal/buildinfo"
)

func init() { subcommands = append(subcommands, newVersionCmd) }

func newVersionCmd() *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "version [-o json|yaml]",
		Short: "Print the version, commit, Go version and platform of this binary",
		Long: "Prints `precedent <version> (commit <sha>, <go version>, <os/arch>)`; with -o json or -o yaml the same fields as\n" +
			`{"version", "commit", "go", "platform"}. precedent --version prints the line too.`,
		Example: `  precedent version -o yaml`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return printVersion(cmd.OutOrStdout(), output, buildinfo.Get())
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "output format: json or yaml (default: one line of text)")
	return cmd
}

func printVersion(w io.Writer, output string, i buildinfo.Info) error {
	switch output {
	case "":
		_, err := fmt.Fprintln(w, i.String())
		return err
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(i)
	case "yaml":
		b, err := yaml.Marshal(i)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	default:
		return &exitError{Code: 2, Err: fmt.Errorf("output format %q is not supported: use -o json or -o yaml, or no -o for text", output)}
	}
}
