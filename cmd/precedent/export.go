package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/precedent-dev/precedent/config"
	"github.com/precedent-dev/precedent/policy"
	"github.com/precedent-dev/precedent/vap"
	"github.com/precedent-dev/precedent/webhook"
)

func init() { subcommands = append(subcommands, newExportCmd) }

func newExportCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "export", Short: "Export manifests derived from Precedent's checks"}
	var kind string
	v := &cobra.Command{
		Use:   "vap [--kind KIND]",
		Short: "Print ValidatingAdmissionPolicy + binding manifests (YAML) for the stateless checks CEL can express",
		Long: "One policy and binding per managed kind (all shipped kinds, or --kind). Checks exported:\n  - " +
			strings.Join(vap.Exported, "\n  - ") +
			"\nThe `when` compilation, the stateful checks and the warnings need the webhook.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			reg := config.Defaults().Registry()
			kinds := reg.Kinds()
			if kind != "" {
				k, ok := reg.ByName(kind)
				if !ok {
					return &exitError{code: 2, err: fmt.Errorf("--kind %q is not a managed policy kind", kind)}
				}
				kinds = []policy.Kind{k}
			}
			out, err := vap.Render(kinds, webhook.Plural)
			if err != nil {
				return err
			}
			_, err = cmd.OutOrStdout().Write(out)
			return err
		},
	}
	v.Flags().StringVar(&kind, "kind", "", "only this kind, e.g. AuthPolicy")
	cmd.AddCommand(v)
	return cmd
}
