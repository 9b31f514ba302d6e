package controlplane

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// watchdogScript waits for its standard input to close: the write end is held by the process that
// started the control plane alone, so the input closes when that process ends, however it ends
// (Ctrl-C handled or not, SIGKILL, a test binary's panic on its timeout, `make` killed). Then it
// kills every process whose command line names the control plane's folder (etcd's data and
// kube-apiserver's certificates are in it) and removes the folder, and the folders named on its
// input by lines "rm <folder>" (those envtest makes where it chooses). It ignores the signals a
// terminal sends, and runs in a process group of its own.
const watchdogScript = `trap '' HUP INT TERM PIPE
extra=
while IFS= read -r line; do
  case $line in "rm "*) extra="$extra
${line#rm }";; esac
done
[ -n "$PRECEDENT_CONTROL_PLANE_DIR" ] || exit 0
for p in /proc/[0-9]*; do
  if tr '\0' ' ' < "$p/cmdline" 2>/dev/null | grep -qF -- "$PRECEDENT_CONTROL_PLANE_DIR"; then
    kill -KILL "${p#/proc/}" 2>/dev/null
  fi
done
sleep 1
rm -rf -- "$PRECEDENT_CONTROL_PLANE_DIR"
printf '%s\n' "$extra" | while IFS= read -r d; do
  [ -z "$d" ] || rm -rf -- "$d"
done
`

// watchdog is the process that cleans up after the control plane if its parent dies without
// stopping it (etcd and kube-apiserver run in process groups of their own, as envtest starts them,
// so neither a signal to the parent's group nor its death reaches them).
type watchdog struct {
	cmd  *exec.Cmd
	hold *os.File // the write end of its input
}

// startWatchdog starts the watchdog of the control plane whose processes and files are in dir.
func startWatchdog(dir string) (*watchdog, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("starting the control plane's watchdog: %w", err)
	}
	defer r.Close()
	cmd := exec.Command("/bin/sh", "-c", watchdogScript)
	cmd.Stdin = r
	cmd.Env = append(os.Environ(), "PRECEDENT_CONTROL_PLANE_DIR="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil, fmt.Errorf("starting the control plane's watchdog: %w", err)
	}
	return &watchdog{cmd: cmd, hold: w}, nil
}

// remove has the watchdog remove folder dir too.
func (w *watchdog) remove(dir string) {
	if dir != "" {
		_, _ = fmt.Fprintf(w.hold, "rm %s\n", dir)
	}
}

// stop ends the watchdog without its cleanup: the control plane was stopped in order.
func (w *watchdog) stop() {
	if w == nil {
		return
	}
	_ = w.cmd.Process.Kill()
	_ = w.hold.Close()
	_ = w.cmd.Wait()
}
