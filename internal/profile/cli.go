package profile

import (
	"github.com/spf13/cobra"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/vap"
)

// Simulator is a profile with a simulator of its own in the CLI: a decision its model makes per
// request rather than per Gateway API path (`precedent access` for one tool call, `precedent mesh`
// for one proxy). The root command adds it as a subcommand, in the order of the registered profiles.
type Simulator interface {
	Simulator() *cobra.Command
}

// ExitError carries a process exit status out of a subcommand: 1 for invalid input (the reasons
// are already printed; Err may be empty), 2 for input that cannot be read or a wrong flag.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// MutatingExporter is a profile with defaulting that CEL can express: `precedent export map` writes
// one MutatingAdmissionPolicy and binding per target, so a cluster without Precedent's mutating
// webhook defaults writes in-tree.
type MutatingExporter interface {
	// MutatingTargets are the targets of the profile's kinds among kinds (the registry's), and of
	// its own kinds when own.
	MutatingTargets(kinds []policy.Kind, own bool) []vap.MutatingTarget
	// Defaultings describe what the profile's targets default, for --help and README.
	Defaultings() []vap.Defaulting
}
