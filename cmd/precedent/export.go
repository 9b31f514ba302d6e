package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/profile"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/vap"
	"github.com/precedent-dev/precedent/profiles"
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
			strings.Join(vap.Exported(), "\n  - ") +
			"\nThe `when` compilation, the stateful checks and the warnings need the webhook.\n\n" +
			"The managed kinds are those of --config FILE; without it, of the cluster's PrecedentConfig named\n" +
			"cluster (in the kubeconfig's cluster); with no kubeconfig at all, the shipped kinds.\n\n" + kindHelp,
		Example: `  precedent export vap --kind RateLimitPolicy`,
		Args:    cobra.NoArgs,
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
					if own := ownKind(kind); own != nil {
						// A shipped kind of a profile's own: its CRD carries its stateless rules.
						fmt.Fprintf(cmd.OutOrStdout(), "# %s.%s: nothing to export; its CRD's x-kubernetes-validations carry its stateless checks, and the rest needs the webhook\n", own.Kind, own.Group)
						return nil
					}
					return &exitError{Code: 2, Err: fmt.Errorf("--kind %w", err)}
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
	cf.add(v, false)
	cmd.AddCommand(v, newExportMapCmd())
	return cmd
}

func newExportMapCmd() *cobra.Command {
	var kind, configFile string
	var cf clusterFlags
	var lines []string
	for _, d := range profiles.Defaultings() {
		lines = append(lines, d.ID+": "+d.Message)
	}
	m := &cobra.Command{
		Use:   "map [--kind KIND] [--config FILE]",
		Short: "Print MutatingAdmissionPolicy + binding manifests (YAML) for the defaulting CEL can express (Kubernetes 1.36+)",
		Long: "One policy and binding per managed kind that has defaulting CEL can express (all, or --kind),\n" +
			"plus AccessPolicy and XAccessPolicy. Defaulting exported:\n  - " + strings.Join(lines, "\n  - ") +
			"\nGEP-713 and Kuadrant kinds have no defaulting of Precedent's (Kuadrant's CRDs default their strategy);\n" +
			"mesh kinds none CEL can express; envoy-gateway kinds only where their line sets defaults.mergeType.\n\n" +
			"The managed kinds are those of --config FILE; without it, of the cluster's PrecedentConfig named\n" +
			"cluster (in the kubeconfig's cluster); with no kubeconfig at all, the shipped kinds.\n\n" + kindHelp,
		Example: `  precedent export map --kind AccessPolicy`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := exportSettings(cmd.Context(), configFile, &cf, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			reg := s.Registry()
			if kind == "" {
				return writeMutating(cmd.OutOrStdout(), profiles.MutatingTargets(reg.Kinds(), true))
			}
			var own []vap.MutatingTarget // a profile's own kind (AccessPolicy)
			for _, t := range profiles.MutatingTargets(nil, true) {
				if profile.Names(kind, t.GK) {
					own = append(own, t)
				}
			}
			if len(own) > 0 {
				return writeMutating(cmd.OutOrStdout(), own)
			}
			k, err := reg.Resolve(kind)
			if err != nil {
				return &exitError{Code: 2, Err: fmt.Errorf("--kind %w", err)}
			}
			targets := profiles.MutatingTargets([]policy.Kind{k}, false)
			if len(targets) == 0 {
				fmt.Fprintf(cmd.OutOrStdout(), "# %s.%s (profile %s): no defaulting of Precedent's that CEL can express\n", k.GVK.Kind, k.GVK.Group, k.Profile)
				return nil
			}
			return writeMutating(cmd.OutOrStdout(), targets)
		},
	}
	m.Flags().StringVar(&kind, "kind", "", "only this kind: Kind or Kind.group, e.g. AuthPolicy, AccessPolicy")
	m.Flags().StringVar(&configFile, "config", "", "file holding the PrecedentConfig whose kinds to export")
	cf.add(m, false)
	return m
}

func writeMutating(w io.Writer, targets []vap.MutatingTarget) error {
	out, err := vap.RenderMutating(targets)
	if err != nil {
		return err
	}
	_, err = w.Write(out)
	return err
}

// exportSettings reads --config, else the cluster's PrecedentConfig, else (no kubeconfig) the defaults.
func exportSettings(ctx context.Context, file string, cf *clusterFlags, w io.Writer) (settings.Settings, error) {
	if file != "" {
		return readConfigFile(file)
	}
	if cf.empty() {
		fmt.Fprintln(w, "Note: "+codeExportDefaults.Line("no kubeconfig: exporting the shipped kinds (give --config FILE for configured ones)"))
		return settings.Defaults(), nil
	}
	c, _, err := cf.client()
	if err != nil {
		return settings.Settings{}, err
	}
	return clusterSettings(ctx, c, w)
}
