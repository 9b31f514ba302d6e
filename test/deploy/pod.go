package deploy

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Network hands out one /30 per pod from 10.213.0.0/16: the host end of the pod's veth pair is .1,
// the pod's own address .2. It lives in the suite's own network namespace (sandbox.go), so the
// addresses and the names of its namespaces are the suite's alone.
type Network struct {
	mu   sync.Mutex
	next int
	made []string // namespaces, for Cleanup
}

// Link is one pod's network: a namespace and a veth pair.
type Link struct {
	NS, HostIf     string
	HostIP, PodIP  string
	network        *Network
	removedAlready bool
}

// Add makes a namespace with a veth pair: eth0 inside with the pod's address, the host end outside.
func (n *Network) Add() (*Link, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	k := n.next
	if k >= 256*64 {
		return nil, fmt.Errorf("no free /30 in 10.213.0.0/16")
	}
	n.next++
	third, fourth := k/64, (k%64)*4
	l := &Link{NS: fmt.Sprintf("precd-%d", k), HostIf: fmt.Sprintf("precd%dh", k), HostIP: fmt.Sprintf("10.213.%d.%d", third, fourth+1), PodIP: fmt.Sprintf("10.213.%d.%d", third, fourth+2), network: n}
	n.made = append(n.made, l.NS)
	steps := [][]string{
		{"netns", "add", l.NS},
		{"link", "add", l.HostIf, "type", "veth", "peer", "name", "eth0", "netns", l.NS},
		{"addr", "add", l.HostIP + "/30", "dev", l.HostIf},
		{"link", "set", l.HostIf, "up"},
		{"-n", l.NS, "addr", "add", l.PodIP + "/30", "dev", "eth0"},
		{"-n", l.NS, "link", "set", "eth0", "up"},
		{"-n", l.NS, "link", "set", "lo", "up"},
	}
	for _, s := range steps {
		if err := ip(s...); err != nil {
			l.Remove()
			return nil, err
		}
	}
	return l, nil
}

// Remove deletes the namespace (and with it the veth pair).
func (l *Link) Remove() {
	if l.removedAlready {
		return
	}
	l.removedAlready = true
	_ = ip("netns", "del", l.NS)
	_ = ip("link", "del", l.HostIf) // gone with the namespace already, unless the namespace was never made
}

// Cleanup removes every namespace n made that is still there.
func (n *Network) Cleanup() {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, ns := range n.made {
		_ = ip("netns", "del", ns)
	}
	n.made = nil
}

func ip(args ...string) error {
	out, err := exec.Command("ip", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ip %s: %w: %s", strings.Join(args, " "), err, bytes.TrimSpace(out))
	}
	return nil
}

// PodSpec is what the kubelet reads from the rendered Deployment's container.
type PodSpec struct {
	Args []string
	// WebhookPort, HealthPort are the container ports named webhook and the readiness probe's.
	WebhookPort, HealthPort int
	ReadyPath               string
	PreStop, Grace          time.Duration
}

// Pod is one `precedent serve` container in its own network namespace. The kubelet part: a
// container that exits on its own is restarted in the same pod (restartPolicy Always), and
// OnExit/OnRestart say so, so that its endpoint follows.
type Pod struct {
	Name string
	// CertDir is the pod's --cert-dir (its certificate volume).
	CertDir string
	Link    *Link
	Spec    PodSpec
	// Restarts counts the container's restarts.
	Restarts int

	args, env []string
	log       *os.File
	mu        sync.Mutex
	cmd       *exec.Cmd
	done      chan struct{} // of the current container
	stopping  bool
	onExit    func(*Pod)
}

// StartPodIn runs binary with the spec's args in a new namespace of n, with the kubeconfig that
// kubeconfig writes for the pod's link, and the hostname name (a UTS namespace of its own: the
// leader-election identity starts with it). onExit is called when the container exits on its own
// (before it is restarted).
func StartPodIn(n *Network, name, binary, logDir string, spec PodSpec, kubeconfig func(*Link) (string, error), onExit func(*Pod)) (*Pod, error) {
	l, err := n.Add()
	if err != nil {
		return nil, err
	}
	kc, err := kubeconfig(l)
	if err != nil {
		l.Remove()
		return nil, err
	}
	p := &Pod{Name: name, Link: l, Spec: spec, onExit: onExit}
	if p.log, err = os.Create(filepath.Join(logDir, name+".log")); err != nil {
		l.Remove()
		return nil, err
	}
	p.args = append([]string{"netns", "exec", l.NS, "unshare", "--uts", "sh", "-c", `hostname "$0" && exec "$@"`, name, binary}, spec.Args...)
	p.env = append(os.Environ(), "KUBECONFIG="+kc)
	if err := p.start(); err != nil {
		l.Remove()
		return nil, err
	}
	return p, nil
}

func (p *Pod) start() error {
	cmd := exec.Command("ip", p.args...)
	cmd.Env = p.env
	cmd.Stdout, cmd.Stderr = p.log, p.log
	// ip, unshare and sh exec in turn: the process is precedent itself; it dies with the test.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	p.mu.Lock()
	if p.stopping {
		p.mu.Unlock()
		return nil
	}
	if err := cmd.Start(); err != nil {
		p.mu.Unlock()
		return fmt.Errorf("starting %s: %w", p.Name, err)
	}
	done := make(chan struct{})
	p.cmd, p.done = cmd, done
	p.mu.Unlock()
	go func() {
		_ = cmd.Wait()
		close(done)
		p.mu.Lock()
		restart := !p.stopping
		p.mu.Unlock()
		if !restart {
			return
		}
		fmt.Fprintf(p.log, "deploy test (kubelet): container exited (%v), restarting\n", cmd.ProcessState)
		if p.onExit != nil {
			p.onExit(p)
		}
		p.mu.Lock()
		p.Restarts++
		p.mu.Unlock()
		_ = p.start()
	}()
	return nil
}

// RestartCount is Restarts, read under the pod's lock.
func (p *Pod) RestartCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.Restarts
}

func (p *Pod) current() (*exec.Cmd, chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cmd, p.done
}

// stop marks the pod as being stopped by the test: its container is not restarted.
func (p *Pod) stop() (*exec.Cmd, chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopping = true
	return p.cmd, p.done
}

// WaitReady probes /readyz on the pod's address, as the kubelet's readiness probe does (every
// 100 ms here), until it answers 200.
func (p *Pod) WaitReady(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c := &http.Client{Timeout: time.Second}
	url := "http://" + p.Link.PodIP + ":" + strconv.Itoa(p.Spec.HealthPort) + p.Spec.ReadyPath
	last := ""
	for {
		resp, err := c.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = resp.Status
		} else {
			last = err.Error()
		}
		_, done := p.current()
		select {
		case <-done:
			return fmt.Errorf("%s exited before it was ready:\n%s", p.Name, p.LogTail())
		case <-ctx.Done():
			return fmt.Errorf("%s not ready within %s (last probe: %s):\n%s", p.Name, timeout, last, p.LogTail())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Terminate is the kubelet stopping a container: SIGTERM, then SIGKILL after the grace period.
// It returns how long the process took to exit after SIGTERM.
func (p *Pod) Terminate() time.Duration {
	t0 := time.Now()
	cmd, done := p.stop()
	_ = cmd.Process.Signal(syscall.SIGTERM)
	grace := p.Spec.Grace
	if grace == 0 {
		grace = 30 * time.Second
	}
	select {
	case <-done:
	case <-time.After(grace):
		_ = cmd.Process.Kill()
		<-done
	}
	return time.Since(t0)
}

// Kill is a crash that takes the pod with it: SIGKILL, and the process is gone for good.
func (p *Pod) Kill() {
	cmd, done := p.stop()
	_ = cmd.Process.Kill()
	<-done
}

// Remove ends the process if it still runs and removes the pod's network.
func (p *Pod) Remove() {
	p.Kill()
	_ = p.log.Close()
	p.Link.Remove()
}

// LogTail is the end of the pod's log, for failure messages.
func (p *Pod) LogTail() string {
	b, _ := os.ReadFile(p.log.Name())
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}
