package main

import (
	"bytes"
	"errors"
	"os"
	"syscall"
	"testing"

	"github.com/spf13/cobra"
)

// TestExecuteSignals: a signal stops a command that does not stop itself at once, with 128 + the
// signal's number and its name on stderr, even while the command never looks at its context; a
// command that stops itself (dev, serve) is waited for, and its own status is the process's.
func TestExecuteSignals(t *testing.T) {
	for _, tc := range []struct {
		name       string
		stopsSelf  bool
		sig        os.Signal
		wantStatus int
		wantStderr string
	}{
		{"SIGTERM stops a command that never returns", false, syscall.SIGTERM, 143, "error: stopped by SIGTERM\n"},
		{"SIGINT stops a command that never returns", false, os.Interrupt, 130, "error: stopped by SIGINT\n"},
		{"SIGHUP stops a command that never returns", false, syscall.SIGHUP, 129, "error: stopped by SIGHUP\n"},
		{"a command that stops itself is waited for", true, syscall.SIGTERM, 0, ""},
		{"and its error is reported", true, syscall.SIGHUP, 2, "error: cleaned up after: context canceled\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			release := make(chan struct{})
			defer close(release)
			started := make(chan struct{})
			run := &cobra.Command{Use: "run", RunE: func(cmd *cobra.Command, _ []string) error {
				close(started)
				if !tc.stopsSelf {
					<-release // never looks at its context
					return nil
				}
				<-cmd.Context().Done()
				if tc.wantStatus == 0 {
					return nil
				}
				return errors.New("cleaned up after: " + cmd.Context().Err().Error())
			}}
			if tc.stopsSelf {
				run.Annotations = map[string]string{stopsItself: "true"}
			}
			root := &cobra.Command{Use: "precedent", SilenceErrors: true, SilenceUsage: true}
			root.AddCommand(run)
			sigs := make(chan os.Signal, 1)
			var stderr bytes.Buffer
			status := make(chan int, 1)
			go func() { status <- execute(root, []string{"run"}, sigs, &stderr) }()
			<-started
			sigs <- tc.sig
			if got := <-status; got != tc.wantStatus {
				t.Errorf("status %d, want %d", got, tc.wantStatus)
			}
			if stderr.String() != tc.wantStderr {
				t.Errorf("stderr %q, want %q", stderr.String(), tc.wantStderr)
			}
		})
	}
}

// TestExecuteWithoutSignal: without a signal, execute returns the command's status and reports its
// error as main always did; the context the command gets is live.
func TestExecuteWithoutSignal(t *testing.T) {
	for _, tc := range []struct {
		name       string
		err        error
		wantStatus int
		wantStderr string
	}{
		{"success", nil, 0, ""},
		{"a plain error", errors.New("boom"), 2, "error: boom\n"},
		{"an exit error", &exitError{Code: 1, Err: errors.New("2 errors")}, 1, "error: 2 errors\n"},
		{"an exit error without text", &exitError{Code: 1}, 1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ctxErr error
			run := &cobra.Command{Use: "run", RunE: func(cmd *cobra.Command, _ []string) error {
				ctxErr = cmd.Context().Err()
				return tc.err
			}}
			root := &cobra.Command{Use: "precedent", SilenceErrors: true, SilenceUsage: true}
			root.AddCommand(run)
			var stderr bytes.Buffer
			if got := execute(root, []string{"run"}, make(chan os.Signal), &stderr); got != tc.wantStatus {
				t.Errorf("status %d, want %d", got, tc.wantStatus)
			}
			if stderr.String() != tc.wantStderr {
				t.Errorf("stderr %q, want %q", stderr.String(), tc.wantStderr)
			}
			if ctxErr != nil {
				t.Errorf("the command's context was done: %v", ctxErr)
			}
		})
	}
}

// TestCommandsThatStopThemselves: dev and serve, which stop what they started, are the commands
// execute waits for after a signal; every other command is stopped at once.
func TestCommandsThatStopThemselves(t *testing.T) {
	root := newRootCmd()
	var got []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Annotations[stopsItself] != "" {
			got = append(got, c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	want := []string{"precedent dev", "precedent serve"}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("commands that stop themselves: %v, want %v", got, want)
	}
}
