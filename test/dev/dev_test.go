// Package dev tests `precedent dev`, what `make run` runs, end to end: the built binary starts the
// local control plane with the CRD folders of `make run`, applies every sample set (each marked ✓,
// none skipped), prints the ready line and the "try this" commands; each profile's tour gives in the
// cluster the answer it gives offline; each printed kubectl command gives what
// docs/local-cluster.md shows; Ctrl-C (SIGINT) stops everything it started. Without those CRD
// folders, a set that needs a kind the cluster does not serve is marked ✗ skipped, never ✓.
package dev

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/precedent-dev/precedent/test/harness"

	"github.com/precedent-dev/precedent/test/egcrds"
)

// root is the repository root (this package is test/dev).
var root = filepath.Join("..", "..")

func TestMakeRun(t *testing.T) {
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Fatalf("kubectl is needed for this end-to-end test: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "precedent")
	build := exec.Command("go", "build", "-tags", harness.BuildTags, "-o", bin, "./cmd/precedent")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building precedent: %v\n%s", err, out)
	}
	// dev's temporary folders (its control plane's among them) go to a folder of this test's own:
	// the processes left afterwards are those that name it, whatever other suites run meanwhile.
	tmp := t.TempDir()

	// The CRD folders of `make run`: every model's, so every sample set applies.
	dirs, err := egcrds.RunCRDDirs()
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig := filepath.Join(t.TempDir(), "dev.kubeconfig")
	args := []string{"dev", "--kubeconfig-out", kubeconfig}
	for _, d := range dirs {
		args = append(args, "--crd-dir", d)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	dev, lines, stderr := startDev(t, cmd)
	stopped := false
	defer func() {
		if !stopped {
			_ = dev.Process.Signal(os.Interrupt)
			_ = dev.Wait()
		}
	}()

	// Read the output up to the last "try this" command.
	log, commands := readCommands(t, lines, stderr, 5)
	if !contains(log, "ready: kubeconfig="+kubeconfig) {
		t.Fatalf("no ready line naming the kubeconfig:\n%s", strings.Join(log, "\n"))
	}
	allApplied(t, log)
	// Before the "try this" commands change the cluster: each profile's tour gives in the cluster
	// what it gives offline over the same samples.
	sameAnswers(t, bin, kubeconfig)

	// Each printed command, in order, with what docs/local-cluster.md says it gives.
	want := []struct {
		fails bool
		says  string
	}{
		{true, `The AuthPolicy "try-unset" is invalid: spec.unset[0]: Forbidden: PRC-E023 rule authorization.b is set by the overrides of AuthPolicy c1/gw-policy and cannot be unset`},
		{true, `The AuthPolicy "try-mixed" is invalid: spec.rules: Forbidden: bare rules cannot be combined with spec.defaults or spec.overrides`},
		{false, "Warning: PRC-W002 rule authorization.b on route c1/route is overridden by AuthPolicy c1/gw-policy"},
		{false, "Warning: PRC-W002 rule authorization.b on route c1/route is overridden by AuthPolicy c1/gw-policy"},
		{false, "precedentconfig.policy.precedent.dev/cluster"},
	}
	for i, c := range commands {
		fields := strings.Fields(c)
		cmd := exec.Command(fields[0], fields[1:]...)
		cmd.Dir = root
		got, err := cmd.CombinedOutput()
		if (err != nil) != want[i].fails || !strings.Contains(string(got), want[i].says) {
			t.Errorf("%s: error %v, output:\n%s\nwant it to fail: %t, saying %q", c, err, got, want[i].fails, want[i].says)
		}
	}
	// With unset switched off, an unset is rejected for that reason (the settings are live).
	again := exec.Command("kubectl", "--kubeconfig", kubeconfig, "apply", "--dry-run=server", "-f", "config/try/rejected-unset.yaml")
	again.Dir = root
	if got, err := again.CombinedOutput(); err == nil || !strings.Contains(string(got), "unset is switched off in this cluster") {
		t.Errorf("an unset after unset-off.yaml: error %v, output:\n%s", err, got)
	}

	// Ctrl-C stops everything.
	log = interrupt(t, dev, lines, log, stderr)
	stopped = true
	if !contains(log, "stopped: webhooks, kube-apiserver and etcd") {
		t.Errorf("no stop line:\n%s", strings.Join(log, "\n"))
	}
	for pid, cmdline := range processesUnder(t, tmp) {
		t.Errorf("process %d left running after SIGINT: %s", pid, cmdline)
	}
}

func contains(lines []string, s string) bool {
	for _, l := range lines {
		if l == s {
			return true
		}
	}
	return false
}

// startDev starts dev in the repository root and returns it, its output lines (closed at its end)
// and its standard error.
func startDev(t *testing.T, dev *exec.Cmd) (*exec.Cmd, <-chan string, *bytes.Buffer) {
	t.Helper()
	dev.Dir = root
	out, err := dev.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &bytes.Buffer{}
	dev.Stderr = stderr
	if err := dev.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	return dev, lines, stderr
}

// interrupt sends SIGINT to dev, reads the rest of its output lines after log, and waits (a minute
// at most) for it to exit with status 0. It returns the whole output.
func interrupt(t *testing.T, dev *exec.Cmd, lines <-chan string, log []string, stderr *bytes.Buffer) []string {
	t.Helper()
	return stop(t, dev, os.Interrupt, lines, log, stderr)
}

// stop is interrupt with signal sig.
func stop(t *testing.T, dev *exec.Cmd, sig os.Signal, lines <-chan string, log []string, stderr *bytes.Buffer) []string {
	t.Helper()
	if err := dev.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	for l := range lines {
		log = append(log, l)
	}
	waited := make(chan error, 1)
	go func() { waited <- dev.Wait() }()
	select {
	case err := <-waited:
		if err != nil {
			t.Errorf("precedent dev exited with %v after %v; stderr:\n%s", err, sig, stderr.String())
		}
	case <-time.After(time.Minute):
		_ = dev.Process.Kill()
		t.Fatalf("precedent dev did not stop within a minute of %v:\n%s", sig, strings.Join(log, "\n"))
	}
	return log
}

// processes lists the running processes (not zombies) whose command line (NUL-separated) matches,
// by pid, with their command lines.
func processes(t *testing.T, match func(cmdline []byte) bool) map[int]string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]string{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		raw, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || len(raw) == 0 || !match(raw) {
			continue
		}
		if err := syscall.Kill(pid, 0); err != nil {
			continue
		}
		if stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && bytes.Contains(stat, []byte(") Z ")) {
			continue
		}
		out[pid] = strings.ReplaceAll(string(raw), "\x00", " ")
	}
	return out
}

// readCommands reads the lines of output of precedent dev up to its n-th "try this" command, within three
// minutes: the lines read and the commands.
func readCommands(t *testing.T, lines <-chan string, stderr *bytes.Buffer, n int) (log, commands []string) {
	t.Helper()
	deadline := time.After(3 * time.Minute)
	for len(commands) < n {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("precedent dev ended before printing its commands:\n%s\nstderr:\n%s", strings.Join(log, "\n"), stderr.String())
			}
			log = append(log, l)
			if strings.HasPrefix(l, "  kubectl ") {
				commands = append(commands, strings.TrimSpace(l))
			}
		case <-deadline:
			t.Fatalf("no ready line and commands within 3 minutes:\n%s", strings.Join(log, "\n"))
		}
	}
	return log, commands
}
