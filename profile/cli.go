package profile

import "github.com/spf13/cobra"

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
