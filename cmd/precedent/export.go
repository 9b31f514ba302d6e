package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/precedent-dev/precedent/policy"
	"github.com/precedent-dev/precedent/settings"
	"github.com/precedent-dev/precedent/vap"
	"github.com/precedent-dev/precedent/webhook"
)

func init() { subcommands = append(subcommands, newExportCmd) }

func newExportCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "export", Short: "Export manifests derived from Precedent's checks"}
	var kind, configFile string
	var cf clusterFlags
	v := &cobra.Command{
		Use:   "vap [--kind KIND] [--config FILE]",
		Short: "Print ValidatingAdmissionPolicy + binding manifests (YAML) for the stateless checks CEL can express",
		Long: "One policy and binding per managed kind (all managed kinds, or --kind). Checks exported:\n  - " +
			strings.Join(vap.Exported, "\n  - ") +
			"\nThe `when` compilation, the stateful checks and the warnings need the webhook.\n\n" +
			"The managed kinds are those of --config FILE; without it, of the cluster's PrecedentConfig named\n" +
			"cluster (in the kubeconfig's cluster); with no kubeconfig at all, the shipped kinds.\n\n" + kindHelp,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := exportSettings(cmd.Context(), configFile, &cf, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			reg := s.Registry()
			kinds := reg.Kinds()
			if kind != "" {
				k, err := reg.Resolve(kind)
				if err != nil {
					return &exitError{code: 2, err: fmt.Errorf("--kind %w", err)}
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
	v.Flags().StringVar(&kind, "kind", "", "only this kind: Kind or Kind.group, e.g. AuthPolicy")
	v.Flags().StringVar(&configFile, "config", "", "file holding the PrecedentConfig whose kinds to export")
	v.Flags().StringVar(&cf.kubeconfig, "kubeconfig", "", "path to the kubeconfig (default: $KUBECONFIG or ~/.kube/config)")
	v.Flags().StringVar(&cf.context, "context", "", "kubeconfig context to use")
	cmd.AddCommand(v)
	return cmd
}

// exportSettings reads --config, else the cluster's PrecedentConfig, else (no kubeconfig) the defaults.
func exportSettings(ctx context.Context, file string, cf *clusterFlags, w io.Writer) (settings.Settings, error) {
	if file != "" {
		return readConfigFile(file)
	}
	if _, err := cf.clientConfig().ClientConfig(); clientcmd.IsEmptyConfig(err) {
		fmt.Fprintln(w, "note: no kubeconfig: exporting the shipped kinds (give --config FILE for configured ones)")
		return settings.Defaults(), nil
	}
	c, _, err := cf.client()
	if err != nil {
		return settings.Settings{}, err
	}
	return clusterSettings(ctx, c)
}
