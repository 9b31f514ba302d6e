package deploy

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/precedent-dev/precedent/test/harness"

	authenticationv1 "k8s.io/api/authentication/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/precedent-dev/precedent/internal/controlplane"
)

// Cluster is the control plane with what the suite installed on it, and the pods it runs.
type Cluster struct {
	Env      *controlplane.Env
	Admin    client.Client
	AdminCfg *rest.Config
	Dir      string // logs, kubeconfigs, volumes
	AuditLog string
	Binary   string
	Net      *Network

	// Set by Install: the last rendered manifests applied, and all of them.
	Manifests *Rendered
	Installed []*Rendered
	Spec      PodSpec
	SA        corev1.ObjectReference
	Endpoints *Endpoints
	// Issuer and Serving play cert-manager in cert-manager mode: the CA in caBundle, and the
	// Secret's current tls.crt, tls.key.
	Issuer  *Issuer
	Serving map[string][]byte
	Builtin bool

	mu   sync.Mutex
	pods []*Pod
	seq  int
	// restarts are when kube-apiserver was stopped and when it was back, per restart.
	restarts [][2]time.Time
}

// RestartAPIServer restarts kube-apiserver and records when it was back.
func (c *Cluster) RestartAPIServer() (stopErr, err error) {
	down := time.Now()
	stopErr, err = c.Env.RestartAPIServer()
	c.mu.Lock()
	c.restarts = append(c.restarts, [2]time.Time{down, time.Now()})
	c.mu.Unlock()
	return stopErr, err
}

// restartedAt says whether at falls in a restart of kube-apiserver or the first 10 s after it
// came back, and when that was.
func (c *Cluster) restartedAt(at time.Time) (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range c.restarts {
		if at.After(r[0]) && at.Before(r[1].Add(10*time.Second)) {
			return r[1], true
		}
	}
	return time.Time{}, false
}

// ServiceDNS is the name the API server verifies the webhook server's certificate against.
const ServiceDNS = "precedent-webhook.precedent-system.svc"

// Options of the control plane the suite needs.
func APIServerFlags(dir, user string) (map[string]string, error) {
	policy := filepath.Join(dir, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(AuditPolicy(user)), 0o600); err != nil {
		return nil, err
	}
	return map[string]string{
		// Webhook Services resolve to a ready endpoint of their EndpointSlices, not the ClusterIP
		// (there is no kube-proxy).
		"enable-aggregator-routing": "true",
		// Reachable from the pods' namespaces at their host end; the tests' own traffic goes to
		// 127.0.0.1.
		"bind-address": "0.0.0.0",
		// The suite's network namespace has no default route for kube-apiserver to find its
		// address by, and the kubernetes Service's endpoint may not be a loopback address.
		"advertise-address": NodeIP,
		"audit-policy-file": policy,
		"audit-log-path":    filepath.Join(dir, "audit.log"),
	}, nil
}

// Scheme has the built-in kinds and CRDs.
func Scheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		return nil, err
	}
	return s, apiextensionsv1.AddToScheme(s)
}

// Build builds the precedent binary into bin/ of the module at root.
func Build(root string) (string, error) {
	out, err := filepath.Abs(filepath.Join(root, "bin", "precedent"))
	if err != nil {
		return "", err
	}
	cmd := exec.Command("go", "build", "-tags", harness.BuildTags, "-o", out, "./cmd/precedent")
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/precedent: %w: %s", err, b)
	}
	return out, nil
}

// Install applies r and reads the pod spec and ServiceAccount from its Deployment.
func (c *Cluster) Install(ctx context.Context, r *Rendered) ([]string, error) {
	applied, err := r.Apply(ctx, c.Admin)
	if err != nil {
		return applied, err
	}
	d, err := r.Deployment()
	if err != nil {
		return applied, err
	}
	if c.Spec, err = PodSpecOf(d); err != nil {
		return applied, err
	}
	c.Manifests, c.SA = r, ServiceAccountOf(d)
	c.Installed = append(c.Installed, r)
	svc := r.Find("Service", "precedent-webhook")
	if svc == nil {
		return applied, fmt.Errorf("%s renders no Service precedent-webhook", r.Source)
	}
	c.Endpoints = NewEndpoints(c.Admin, svc.GetNamespace(), svc.GetName(), "webhook", int32(c.Spec.WebhookPort))
	return applied, nil
}

// InjectCA plays cert-manager's CA injector: caBundle of every webhook of Precedent's two
// configurations.
func (c *Cluster) InjectCA(ctx context.Context, ca []byte) error {
	for _, kind := range []string{"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"} {
		o := c.Manifests.Find(kind, "precedent")
		if o == nil {
			return fmt.Errorf("no %s precedent in %s", kind, c.Manifests.Source)
		}
		u := o.DeepCopy()
		cur := u.DeepCopy()
		if err := c.Admin.Get(ctx, client.ObjectKeyFromObject(u), cur); err != nil {
			return err
		}
		hooks, _, _ := unstructuredSlice(cur.Object, "webhooks")
		for _, h := range hooks {
			h.(map[string]interface{})["clientConfig"].(map[string]interface{})["caBundle"] = b64(ca)
		}
		cur.Object["webhooks"] = hooks
		if err := c.Admin.Update(ctx, cur); err != nil {
			return fmt.Errorf("injecting the CA into %s: %w", kind, err)
		}
	}
	return nil
}

func unstructuredSlice(obj map[string]interface{}, key string) ([]interface{}, bool, error) {
	v, ok := obj[key].([]interface{})
	return v, ok, nil
}

// Token asks the TokenRequest API for a token of the ServiceAccount, as the kubelet does for a
// pod's projected token.
func (c *Cluster) Token(ctx context.Context) (string, error) {
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: c.SA.Namespace, Name: c.SA.Name}}
	tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To(int64(3600))}}
	if err := c.Admin.SubResource("token").Create(ctx, sa, tr); err != nil {
		return "", fmt.Errorf("requesting a token for %s/%s: %w", sa.Namespace, sa.Name, err)
	}
	return tr.Status.Token, nil
}

// StartPod starts a replica, waits for its readiness probe and adds its endpoint, as the kubelet
// and the EndpointSlice controller do for a new pod of the Deployment.
func (c *Cluster) StartPod(ctx context.Context) (*Pod, error) {
	c.mu.Lock()
	c.seq++
	name := fmt.Sprintf("precedent-%d", c.seq)
	c.mu.Unlock()
	certDir := filepath.Join(c.Dir, name+"-certs")
	if !c.Builtin {
		if err := WriteVolume(certDir, c.Serving); err != nil {
			return nil, err
		}
	} else if err := os.MkdirAll(certDir, 0o700); err != nil {
		return nil, err
	}
	var args []string
	leader := false
	for _, a := range c.Spec.Args {
		switch {
		case strings.HasPrefix(a, "--cert-dir="):
			a = "--cert-dir=" + certDir // the volume's mount
		case a == "--leader-elect" || a == "--leader-elect=true":
			leader = true
		}
		args = append(args, a)
	}
	if leader {
		args = append(args, "--leader-election-namespace="+c.SA.Namespace) // in a pod: the service account's namespace file
	}
	// Every admission logged with the handler's time (Pod.Admissions reads them).
	args = append(args, "--v=1")
	token, err := c.Token(ctx)
	if err != nil {
		return nil, err
	}
	spec := c.Spec
	spec.Args = args
	p, err := StartPodIn(c.Net, name, c.Binary, c.Dir, spec, func(l *Link) (string, error) {
		u, err := url.Parse(c.AdminCfg.Host)
		if err != nil {
			return "", err
		}
		kc := filepath.Join(c.Dir, name+".kubeconfig")
		server := "https://" + l.HostIP + ":" + u.Port()
		return kc, os.WriteFile(kc, Kubeconfig(server, "localhost", c.Env.APIServerCA(), token), 0o600)
	}, c.restarted)
	if err != nil {
		return nil, err
	}
	p.CertDir = certDir
	c.mu.Lock()
	c.pods = append(c.pods, p)
	c.mu.Unlock()
	if err := p.WaitReady(ctx, 90*time.Second); err != nil {
		return p, err
	}
	return p, c.Endpoints.Ready(ctx, p.Link.PodIP)
}

// restarted is the kubelet and the EndpointSlice controller after a container exited on its own:
// the endpoint is not ready until the restarted container's readiness probe passes again.
func (c *Cluster) restarted(p *Pod) {
	ctx := context.Background()
	_ = c.Endpoints.NotReady(ctx, p.Link.PodIP)
	go func() {
		if err := p.WaitReady(ctx, 90*time.Second); err == nil {
			_ = c.Endpoints.Ready(ctx, p.Link.PodIP)
		}
	}()
}

// StopPod deletes a pod the Deployment way: its endpoint is marked terminating (no longer picked)
// while the kubelet runs the preStop hook, then SIGTERM, and the endpoint goes once the process
// has exited. It returns how long SIGTERM took.
func (c *Cluster) StopPod(ctx context.Context, p *Pod) (time.Duration, error) {
	if err := c.Endpoints.Terminating(ctx, p.Link.PodIP); err != nil {
		return 0, err
	}
	if p.Spec.PreStop > 0 {
		<-time.After(p.Spec.PreStop) // the kubelet's preStop sleep, from the Deployment
	}
	took := p.Terminate()
	err := c.Endpoints.Remove(ctx, p.Link.PodIP)
	c.forget(p)
	return took, err
}

// StopAll deletes every pod at once, the Deployment way (as when it is deleted or replaced).
func (c *Cluster) StopAll(ctx context.Context) error {
	pods := c.Pods()
	errs := make(chan error, len(pods))
	for _, p := range pods {
		go func() { _, err := c.StopPod(ctx, p); errs <- err }()
	}
	var first error
	for range pods {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// KillPod is a crash: SIGKILL; the kubelet sees the container gone and the endpoint is removed.
// It returns when the endpoint was removed.
func (c *Cluster) KillPod(ctx context.Context, p *Pod) (time.Time, error) {
	p.Kill()
	err := c.Endpoints.Remove(ctx, p.Link.PodIP)
	removed := time.Now()
	c.forget(p)
	return removed, err
}

func (c *Cluster) forget(p *Pod) {
	p.Remove()
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, q := range c.pods {
		if q == p {
			c.pods = append(c.pods[:i], c.pods[i+1:]...)
			return
		}
	}
}

// Pods are the running replicas, oldest first.
func (c *Cluster) Pods() []*Pod {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*Pod(nil), c.pods...)
}

// RollingRestart replaces every pod as a Deployment with maxSurge 1, maxUnavailable 0 does: a new
// pod, ready and in the endpoints, before each old one is stopped.
func (c *Cluster) RollingRestart(ctx context.Context) error {
	for _, old := range c.Pods() {
		if _, err := c.StartPod(ctx); err != nil {
			return err
		}
		if _, err := c.StopPod(ctx, old); err != nil {
			return err
		}
	}
	return nil
}

// Leader is the pod holding the leader-election Lease ("" if none or unknown).
func (c *Cluster) Leader(ctx context.Context, leaseName string) (*Pod, string) {
	l := &coordinationv1.Lease{}
	if err := c.Admin.Get(ctx, client.ObjectKey{Namespace: c.SA.Namespace, Name: leaseName}, l); err != nil || l.Spec.HolderIdentity == nil {
		return nil, fmt.Sprint(err)
	}
	host, _, _ := strings.Cut(*l.Spec.HolderIdentity, "_")
	for _, p := range c.Pods() {
		if p.Name == host {
			return p, *l.Spec.HolderIdentity
		}
	}
	return nil, *l.Spec.HolderIdentity
}

// State describes the pods, the EndpointSlice and the Lease, with each pod's log tail, for a
// failure message.
func (c *Cluster) State(ctx context.Context, lease string) string {
	var b strings.Builder
	for _, p := range c.Pods() {
		fmt.Fprintf(&b, "pod %s at %s, log:\n%s\n", p.Name, p.Link.PodIP, p.LogTail())
	}
	s := c.Endpoints.slice()
	if err := c.Admin.Get(ctx, client.ObjectKeyFromObject(s), s); err != nil {
		fmt.Fprintf(&b, "EndpointSlice: %v\n", err)
	}
	for _, ep := range s.Endpoints {
		fmt.Fprintf(&b, "endpoint %v ready=%v terminating=%v\n", ep.Addresses, ptr.Deref(ep.Conditions.Ready, true), ptr.Deref(ep.Conditions.Terminating, false))
	}
	_, holder := c.Leader(ctx, lease)
	fmt.Fprintf(&b, "lease holder: %s\n", holder)
	return b.String()
}

// Shutdown kills every pod and removes the networks.
func (c *Cluster) Shutdown() {
	for _, p := range c.Pods() {
		p.Remove()
	}
	c.Net.Cleanup()
}
