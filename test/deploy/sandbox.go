package deploy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"
)

// The suite runs in namespaces of its own: a network namespace that holds the control plane, the
// replicas' namespaces and veth pairs and every connection the tests make, so the host's network
// is never touched; a mount namespace where `ip netns` keeps its names on a tmpfs of its own; and,
// for a user who is not root, a user namespace where that user is root, so that neither needs
// privileges on the host.

// sandboxEnv is set, in the environment of the test binary run again inside the namespaces, to the
// precedent binary the outer process built (outside, where the Go module proxy is reachable). Its
// presence says the process is inside.
const sandboxEnv = "PRECEDENT_DEPLOY_SANDBOX_BINARY"

// netnsDir is where `ip netns` keeps the names of network namespaces (iproute2's NETNS_RUN_DIR).
const netnsDir = "/var/run/netns"

// NodeIP is the address of the suite's node, on the loopback interface of its network namespace
// (from TEST-NET-1, RFC 5737): kube-apiserver advertises it, as a node's API server advertises the
// node's address.
const NodeIP = "192.0.2.1"

// Sandboxed says whether this process runs inside the suite's namespaces, and which precedent
// binary the outer process built.
func Sandboxed() (binary string, inside bool) {
	return os.LookupEnv(sandboxEnv)
}

// RunSandboxed runs this test binary again, with the same arguments and environment, in new network
// and mount namespaces (and, for a user who is not root, a new user namespace mapping that user to
// root), and returns its exit code. The child writes to this process's stdout and stderr, gets the
// signals this process gets and dies with it.
func RunSandboxed(binary string) (int, error) {
	exe, err := os.Executable()
	if err != nil {
		return 1, err
	}
	cmd := exec.Command(exe, os.Args[1:]...)
	cmd.Env = append(os.Environ(), sandboxEnv+"="+binary)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	attr := &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNET | syscall.CLONE_NEWNS, Pdeathsig: syscall.SIGKILL}
	uid := os.Geteuid()
	if uid != 0 {
		attr.Cloneflags |= syscall.CLONE_NEWUSER
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: uid, Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getegid(), Size: 1}}
	}
	cmd.SysProcAttr = attr
	// Pdeathsig follows the thread that started the child: keep this goroutine on it until the
	// child is gone.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGQUIT)
	defer signal.Stop(signals)
	if err := cmd.Start(); err != nil {
		if uid != 0 {
			return 1, fmt.Errorf("test/deploy runs its cluster in network namespaces of its own; as uid %d (not root) it needs a user namespace for them, and the kernel refused one (%w): allow unprivileged user namespaces (sysctl user.max_user_namespaces above 0; kernel.unprivileged_userns_clone=1 on kernels that have it; kernel.apparmor_restrict_unprivileged_userns=0 on Ubuntu 23.10 and later) or run it as root", uid, err)
		}
		return 1, fmt.Errorf("test/deploy runs its cluster in network and mount namespaces of its own, and the kernel refused them (%w)", err)
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			select {
			case s := <-signals:
				_ = cmd.Process.Signal(s)
			case <-done:
				return
			}
		}
	}()
	err = cmd.Wait()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 1, fmt.Errorf("test/deploy: the suite (in its namespaces) was killed by %s", ws.Signal())
		}
		return exit.ExitCode(), nil
	}
	if err != nil {
		return 1, err
	}
	return 0, nil
}

// PrepareSandbox readies the namespaces RunSandboxed started this process in: every mount private
// to them, an empty tmpfs where `ip netns` keeps its names, and the loopback interface up (a new
// network namespace starts with it down) with NodeIP on it.
func PrepareSandbox() error {
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making the mounts private to the suite: %w", err)
	}
	if err := mountNetnsDir(); err != nil {
		return err
	}
	if err := ip("link", "set", "lo", "up"); err != nil {
		return err
	}
	return ip("addr", "add", NodeIP+"/32", "dev", "lo")
}

// mountNetnsDir mounts an empty tmpfs on netnsDir. Where the directory does not exist (nobody has
// run `ip netns` as root on the machine yet) and cannot be made, a tmpfs covers its parent instead,
// with the parent's entries bound back onto it, so nothing else there is hidden.
func mountNetnsDir() error {
	if fi, err := os.Stat(netnsDir); err == nil && fi.IsDir() {
		if err := syscall.Mount("tmpfs", netnsDir, "tmpfs", 0, "mode=0755"); err != nil {
			return fmt.Errorf("mounting a tmpfs on %s: %w", netnsDir, err)
		}
		return nil
	}
	parent, err := filepath.EvalSymlinks(filepath.Dir(netnsDir))
	if err != nil {
		return err
	}
	covered, err := os.Open(parent)
	if err != nil {
		return err
	}
	defer covered.Close()
	entries, err := covered.ReadDir(-1)
	if err != nil {
		return err
	}
	if err := syscall.Mount("tmpfs", parent, "tmpfs", 0, "mode=0755"); err != nil {
		return fmt.Errorf("%s is missing, and mounting a tmpfs on %s failed: %w", netnsDir, parent, err)
	}
	for _, e := range entries {
		// The covered directory stays reachable through the open descriptor.
		src := fmt.Sprintf("/proc/self/fd/%d/%s", covered.Fd(), e.Name())
		dst := filepath.Join(parent, e.Name())
		if err := bindBack(src, dst, e.Type()); err != nil {
			return fmt.Errorf("keeping %s visible under the tmpfs on %s: %w", dst, parent, err)
		}
	}
	return os.Mkdir(filepath.Join(parent, filepath.Base(netnsDir)), 0o755)
}

// bindBack makes dst show src: a symbolic link is copied, anything else bind-mounted onto an empty
// directory or file.
func bindBack(src, dst string, typ fs.FileMode) error {
	switch {
	case typ&fs.ModeSymlink != 0:
		target, err := os.Readlink(src)
		if err != nil {
			return err
		}
		return os.Symlink(target, dst)
	case typ.IsDir():
		if err := os.Mkdir(dst, 0o755); err != nil {
			return err
		}
	default:
		if err := os.WriteFile(dst, nil, 0o644); err != nil {
			return err
		}
	}
	return syscall.Mount(src, dst, "", syscall.MS_BIND|syscall.MS_REC, "")
}
