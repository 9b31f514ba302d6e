// Command precedent is the one binary of Precedent: admission webhooks and reconciler (serve), a local
// control plane (dev), and the offline and cluster front doors of the engine (effective, validate,
// explain, access, mesh, export). Installed as kubectl-precedent it is also a kubectl plugin.
package main

import (
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/precedent-dev/precedent/internal/buildinfo"
	"github.com/precedent-dev/precedent/internal/profile"
	"github.com/precedent-dev/precedent/profiles"
)

// exitError carries a process exit status out of a subcommand (validate: 1 for errors, 2 for unreadable input).
type exitError = profile.ExitError

// subcommands are registered by the files that define them (one file per subcommand).
var subcommands []func() *cobra.Command

// newRootCmd builds the command tree; it installs the profiles' models first, which every
// subcommand's settings read.
func newRootCmd() *cobra.Command {
	profiles.Install()
	root := &cobra.Command{
		Use:           "precedent",
		Short:         "Admission, effective-policy projection and status for Gateway API inherited policies",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       buildinfo.Get().String(),
	}
	root.SetVersionTemplate("{{.Version}}\n")
	for _, c := range subcommands {
		root.AddCommand(c())
	}
	for _, p := range profiles.All() { // the profiles' own simulators: access, mesh
		if s, ok := p.(profiles.Simulator); ok {
			cf := &clusterFlags{}
			sim := s.Simulator(cf.read)
			cf.addFiles(sim)
			cf.add(sim, false)
			root.AddCommand(sim)
		}
	}
	return root
}

// pluginName is the name kubectl runs the binary by as its plugin: `kubectl precedent …`.
const pluginName = "kubectl-precedent"

// asPlugin makes the help of root speak as kubectl's plugin: usage lines and examples say
// `kubectl precedent`, the way the user typed it.
func asPlugin(root *cobra.Command) {
	if root.Annotations == nil {
		root.Annotations = map[string]string{}
	}
	root.Annotations[cobra.CommandDisplayNameAnnotation] = "kubectl precedent"
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Example = strings.ReplaceAll("\n"+c.Example, "\n  precedent ", "\n  kubectl precedent ")[1:]
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

func main() {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	root := newRootCmd()
	if strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe") == pluginName {
		asPlugin(root)
	}
	os.Exit(execute(root, os.Args[1:], sigs, os.Stderr))
}
