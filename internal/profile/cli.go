package profile

import (
	"context"
	"io"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Read returns the objects a profile's CLI simulator decides over: those of the files of its -f flag
// when there are any, else the cluster's in the kubeconfig, read with the caller's credentials (the
// front door adds -f/--filename and kubectl's connection flags to the simulator's command; what the
// caller may not list is left out, and a note on notes says so). An input that cannot be read is an
// *ExitError of code 2.
type Read func(ctx context.Context, notes io.Writer) ([]*unstructured.Unstructured, error)

// ExitError carries a process exit status out of a subcommand: 1 for invalid input (the reasons
// are already printed; Err may be empty), 2 for input that cannot be read or a wrong flag.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return ""
	}
	return e.Err.Error()
}
func (e *ExitError) Unwrap() error { return e.Err }
