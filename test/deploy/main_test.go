package deploy

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/precedent-dev/precedent/internal/controlplane"
	"github.com/precedent-dev/precedent/test/harness"
)

// root is the module root, seen from test/deploy.
var root = filepath.Join("..", "..")

// cl is the suite's cluster, shared by its tests in order.
var cl *Cluster

// serviceAccountUser is the user the pods authenticate as (config/rbac's ServiceAccount).
const serviceAccountUser = "system:serviceaccount:precedent-system:precedent"

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	start := time.Now()
	ctrllog.SetLogger(logr.Discard())
	binary, inside := Sandboxed()
	if !inside {
		return runOutside()
	}
	if err := PrepareSandbox(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var err error
	cl, err = setUp(binary)
	code := 1
	if cl != nil {
		defer func() {
			cl.Shutdown()
			if cl.Env != nil {
				_ = cl.Env.Stop()
			}
			if code == 0 {
				_ = os.RemoveAll(cl.Dir)
			} else {
				fmt.Fprintf(os.Stderr, "deploy: the pods' logs and the audit log are kept in %s\n", cl.Dir)
			}
		}()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return code
	}
	fmt.Fprintf(os.Stderr, "deploy: control plane up in %s\n", time.Since(start).Round(time.Millisecond))
	code = m.Run()
	fmt.Fprintf(os.Stderr, "deploy: suite done in %s\n", time.Since(start).Round(time.Millisecond))
	return code
}

// runOutside builds what the suite needs out here, where the Go module proxy is reachable, then
// runs the suite in network and mount namespaces of its own (sandbox.go).
func runOutside() int {
	start := time.Now()
	binary, err := Build(root)
	if err == nil {
		err = FetchRenderer(root)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Fprintf(os.Stderr, "deploy: %s and the chart renderer built in %s\n", binary, time.Since(start).Round(time.Millisecond))
	code, err := RunSandboxed(binary)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	return code
}

func setUp(binary string) (*Cluster, error) {
	dir, err := os.MkdirTemp("", "precedent-deploy-")
	if err != nil {
		return nil, err
	}
	c := &Cluster{Dir: dir, AuditLog: filepath.Join(dir, "audit.log"), Net: &Network{}, Binary: binary}
	flags, err := APIServerFlags(dir, serviceAccountUser)
	if err != nil {
		return c, err
	}
	// Gateway API's CRDs are a prerequisite the admin installs first; Precedent's come with the
	// manifests.
	c.Env, err = controlplane.Start(controlplane.Options{
		AssetsDir:      filepath.Join(root, "bin", "control-plane"),
		CRDDirs:        []string{filepath.Join(root, "config", "crd", "gateway-api")},
		APIServerFlags: flags,
	})
	if err != nil {
		return c, err
	}
	_, c.AdminCfg, err = c.Env.AddAdmin("admin")
	if err != nil {
		return c, err
	}
	c.AdminCfg.QPS, c.AdminCfg.Burst = 1000, 1000 // the write stream, not client-side throttling, sets the pace
	s, err := Scheme()
	if err != nil {
		return c, err
	}
	c.Admin, err = client.New(c.AdminCfg, client.Options{Scheme: s})
	return c, err
}

// loadNS holds the Gateway the write stream's policies target.
const loadNS, loadGateway = "load", "gw"

func createLoadTargets(ctx context.Context, c client.Client) error {
	err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: loadNS}})
	if apierrors.IsAlreadyExists(err) {
		return nil // and its Gateway
	}
	if err != nil {
		return err
	}
	gw := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "gateway.networking.k8s.io/v1", "kind": "Gateway",
		"metadata": map[string]interface{}{"namespace": loadNS, "name": loadGateway},
		"spec": map[string]interface{}{"gatewayClassName": "example", "listeners": []interface{}{
			map[string]interface{}{"name": "http", "port": int64(80), "protocol": "HTTP"},
		}},
	}}
	return c.Create(ctx, gw)
}

// streams counts the write streams started, to name their policies apart.
var streams int

// startLoad runs the write stream until the returned stop is called.
func startLoad(t *testing.T) (*Load, func()) {
	streams++
	l := &Load{C: cl.Admin, Namespace: loadNS, Prefix: fmt.Sprintf("load%d", streams), Gateway: loadGateway, Rate: 70, Workers: 8, Timeout: 10 * time.Second}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); l.Run(ctx, 70*600) }()
	stop := func() { cancel(); <-done }
	t.Cleanup(stop)
	harness.Eventually(t, "the write stream runs", func() (bool, string) {
		n := l.Count()
		return n >= 100, fmt.Sprintf("%d writes", n)
	})
	return l, stop
}

func apiPort() string {
	u, _ := url.Parse(cl.AdminCfg.Host)
	return u.Port()
}
