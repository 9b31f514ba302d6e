package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"
)

// stopsItself is the annotation of a command that handles SIGINT, SIGTERM and SIGHUP itself and
// must be waited for (dev stops its control plane, serve its manager). Any other command is stopped
// by the first of these signals at once, whatever it is doing: the offline commands read and
// review without looking at their context, and a job runner that cancels a job sends SIGTERM.
const stopsItself = "precedent.dev/stops-itself"

// execute runs root with args until it returns or, unless the command stops itself, one of sigs
// arrives; it returns the exit status. Errors go to stderr as `error: …` (status 2 unless the
// error carries its own). A command stopped by a signal prints `error: stopped by SIGTERM` (the
// signal's name) and exits as a shell reports it, 128 + the signal's number: 130 for SIGINT, 143
// for SIGTERM, 129 for SIGHUP. The signal cancels the command's context in either case.
func execute(root *cobra.Command, args []string, sigs <-chan os.Signal, stderr io.Writer) int {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	root.SetArgs(args)
	ownSignals := false
	if c, _, err := root.Find(args); err == nil && c.Annotations[stopsItself] != "" {
		ownSignals = true
	}
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	var err error
	select {
	case err = <-done:
	case sig := <-sigs:
		cancel(fmt.Errorf("%v signal received", sig))
		if !ownSignals {
			fmt.Fprintf(stderr, "error: stopped by %s\n", signalName(sig))
			return signalStatus(sig)
		}
		err = <-done
	}
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.Err != nil && ee.Err.Error() != "" {
			fmt.Fprintln(stderr, "error:", ee.Err)
		}
		return ee.Code
	}
	fmt.Fprintln(stderr, "error:", err)
	return 2
}

// signalStatus is the exit status of a process stopped by sig, as a shell reports it.
func signalStatus(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 128 + int(syscall.SIGINT) // os.Interrupt is SIGINT where it is not a syscall.Signal
}

// signalName is sig's name as kill(1) gives it: SIGINT, SIGTERM, SIGHUP.
func signalName(sig os.Signal) string {
	if s, ok := sig.(syscall.Signal); ok {
		if n := unix.SignalName(s); n != "" {
			return n
		}
	}
	return sig.String()
}
