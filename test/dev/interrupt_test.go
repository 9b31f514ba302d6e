package dev

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/precedent-dev/precedent/test/harness"
)

// TestInterrupt: the first SIGINT stops `precedent dev` in every phase of its start-up, promptly,
// and leaves no etcd or kube-apiserver running and nothing in its temporary folder (TMPDIR); so do
// SIGTERM and SIGHUP (the terminal closed). SIGKILL, which dev cannot handle, leaves nothing either:
// the control plane's watchdog sees its parent gone and cleans up.
func TestInterrupt(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "precedent")
	build := exec.Command("go", "build", "-tags", harness.BuildTags, "-o", bin, "./cmd/precedent")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building precedent: %v\n%s", err, out)
	}
	for _, tc := range []struct {
		phase string
		after string    // the signal once a line starts with this
		sig   os.Signal // nil: SIGINT
	}{
		{"starting etcd and kube-apiserver", "precedent dev: starting", nil},
		{"installing the CRDs", "  ✓ etcd ", nil},
		{"starting the webhook server", "  ✓ self-signed serving certificate", nil},
		{"applying the samples", "  ✓ webhooks registered", nil},
		{"SIGTERM while installing the CRDs", "  ✓ etcd ", syscall.SIGTERM},
		{"SIGHUP while applying the samples", "  ✓ webhooks registered", syscall.SIGHUP},
		{"SIGKILL while installing the CRDs", "  ✓ etcd ", syscall.SIGKILL},
		{"SIGKILL once serving", "  ✓ webhooks registered", syscall.SIGKILL},
	} {
		t.Run(tc.phase, func(t *testing.T) {
			tmp := t.TempDir()
			cmd := exec.Command(bin, "dev", "--kubeconfig-out", filepath.Join(tmp, "..", filepath.Base(tmp)+".kubeconfig"))
			cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
			dev, lines, stderr := startDev(t, cmd)
			var log []string
			deadline := time.After(3 * time.Minute)
		wait:
			for {
				select {
				case l, ok := <-lines:
					if !ok {
						t.Fatalf("precedent dev ended before %q:\n%s\nstderr:\n%s", tc.after, strings.Join(log, "\n"), stderr.String())
					}
					log = append(log, l)
					if strings.HasPrefix(l, tc.after) {
						break wait
					}
				case <-deadline:
					_ = dev.Process.Kill()
					t.Fatalf("no line %q within 3 minutes:\n%s", tc.after, strings.Join(log, "\n"))
				}
			}
			sent := time.Now()
			sig := tc.sig
			if sig == nil {
				sig = os.Interrupt
			}
			if sig == syscall.SIGKILL {
				killed(t, dev, tmp)
			} else {
				log = stop(t, dev, sig, lines, log, stderr)
			}
			t.Logf("stopped %s after %v; last line %q", time.Since(sent).Round(100*time.Millisecond), sig, log[len(log)-1])
			if left := processesUnder(t, tmp); len(left) > 0 {
				for pid, cmdline := range left {
					_ = syscall.Kill(pid, syscall.SIGKILL)
					t.Errorf("process %d left running after %v: %s", pid, sig, cmdline)
				}
			}
			entries, err := os.ReadDir(tmp)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				t.Errorf("left in TMPDIR after %v: %s", sig, e.Name())
			}
		})
	}
}

// killed kills dev and waits (30 s at most) until no process of its control plane runs and its
// temporary folder tmp is empty: the watchdog's work, as dev had no chance to do it.
func killed(t *testing.T, dev *exec.Cmd, tmp string) {
	t.Helper()
	if err := dev.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = dev.Wait()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		entries, _ := os.ReadDir(tmp)
		if len(processesUnder(t, tmp)) == 0 && len(entries) == 0 {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// processesUnder lists the running processes (zombies left out) whose command line names dir: the
// etcd and kube-apiserver a dev run with TMPDIR=dir started keep their data and certificates there.
func processesUnder(t *testing.T, dir string) map[int]string {
	t.Helper()
	return processes(t, func(cmdline []byte) bool { return bytes.Contains(cmdline, []byte(dir)) })
}
