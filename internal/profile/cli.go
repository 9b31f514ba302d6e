package profile

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
