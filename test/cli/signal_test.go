package cli_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestSignalStopsOfflineCommands: an offline command stops on the first SIGTERM or SIGINT while it
// is still reading its input, as a CI runner that cancels a job expects: `error: stopped by
// SIGTERM` and status 143 (130 for SIGINT). The input is a FIFO that the test opens and never
// writes: once the test's open returns, the command has the file open and waits in its read, and
// it would wait there forever if the signal did not stop it.
func TestSignalStopsOfflineCommands(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		sig    syscall.Signal
		status int
		stderr string
	}{
		{[]string{"validate", "-f"}, syscall.SIGTERM, 143, "error: stopped by SIGTERM\n"},
		{[]string{"effective", "-f"}, syscall.SIGINT, 130, "error: stopped by SIGINT\n"},
	} {
		t.Run(tc.args[0], func(t *testing.T) {
			fifo := filepath.Join(t.TempDir(), "policies.yaml")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			var out, errb bytes.Buffer
			cmd := exec.Command(bin, append(tc.args, fifo)...)
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			opened := make(chan *os.File, 1)
			go func() {
				w, err := os.OpenFile(fifo, os.O_WRONLY, 0) // returns once the command opens it
				if err != nil {
					t.Error(err)
				}
				opened <- w
			}()
			select {
			case w := <-opened:
				defer w.Close()
			case err := <-exited:
				t.Fatalf("precedent %v ended before it opened its input: %v\n%s", tc.args, err, errb.String())
			case <-time.After(time.Minute):
				_ = cmd.Process.Kill()
				t.Fatalf("precedent %v did not open its input within a minute", tc.args)
			}
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-exited:
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != tc.status {
					t.Errorf("precedent %v after %v: %v, want exit status %d", tc.args, tc.sig, err, tc.status)
				}
				if errb.String() != tc.stderr || out.Len() != 0 {
					t.Errorf("stdout %q, stderr %q; want nothing and %q", out.String(), errb.String(), tc.stderr)
				}
			case <-time.After(time.Minute):
				_ = cmd.Process.Kill()
				t.Fatalf("precedent %v still running a minute after %v", tc.args, tc.sig)
			}
		})
	}
}
