package deploy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Rendered is one way of installing Precedent, rendered to objects.
type Rendered struct {
	Source  string
	Objects []*unstructured.Unstructured
}

// RenderKustomize renders a kustomization folder as `kubectl kustomize` (and `kubectl apply -k`)
// does.
func RenderKustomize(dir string) (*Rendered, error) {
	out, err := exec.Command("kubectl", "kustomize", dir).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("kubectl kustomize %s: %w: %s", dir, err, ee.Stderr)
		}
		return nil, fmt.Errorf("kubectl kustomize %s: %w", dir, err)
	}
	objs, err := decode(out)
	if err != nil {
		return nil, fmt.Errorf("reading kubectl kustomize %s: %w", dir, err)
	}
	return &Rendered{Source: dir, Objects: objs}, nil
}

func decode(b []byte) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	d := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 4096)
	for {
		u := &unstructured.Unstructured{}
		if err := d.Decode(&u.Object); err != nil {
			if err == io.EOF {
				return out, nil
			}
			return nil, err
		}
		if len(u.Object) > 0 {
			out = append(out, u)
		}
	}
}

// Find returns the object of kind and name (nil if none).
func (r *Rendered) Find(kind, name string) *unstructured.Unstructured {
	for _, o := range r.Objects {
		if o.GetKind() == kind && o.GetName() == name {
			return o
		}
	}
	return nil
}

// Deployment is the rendered Deployment.
func (r *Rendered) Deployment() (*appsv1.Deployment, error) {
	for _, o := range r.Objects {
		if o.GetKind() == "Deployment" {
			d := &appsv1.Deployment{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, d); err != nil {
				return nil, fmt.Errorf("reading the Deployment of %s: %w", r.Source, err)
			}
			return d, nil
		}
	}
	return nil, fmt.Errorf("%s renders no Deployment", r.Source)
}

// Installed says which rendered objects the admin applies here: everything but what a cluster's
// other controllers act on (the Deployment: no kubelet here, the test runs its pods; cert-manager's
// Issuer and Certificate: the test plays cert-manager).
func Installed(o *unstructured.Unstructured) bool {
	switch {
	case o.GetKind() == "Deployment":
		return false
	case strings.HasPrefix(o.GetAPIVersion(), "cert-manager.io/"):
		return false
	case strings.HasPrefix(o.GetAPIVersion(), "monitoring.coreos.com/"):
		return false
	}
	return true
}

// Apply applies the installed objects with server-side apply (`kubectl apply --server-side`):
// namespaces and CRDs first, then, once the CRDs are established, the rest. It returns what it
// applied.
func (r *Rendered) Apply(ctx context.Context, c client.Client) ([]string, error) {
	var objs []*unstructured.Unstructured
	for _, o := range r.Objects {
		if Installed(o) {
			objs = append(objs, o)
		}
	}
	rank := func(o *unstructured.Unstructured) int {
		switch o.GetKind() {
		case "Namespace":
			return 0
		case "CustomResourceDefinition":
			return 1
		}
		return 2
	}
	sort.SliceStable(objs, func(i, j int) bool { return rank(objs[i]) < rank(objs[j]) })
	var applied, crds []string
	for _, o := range objs {
		if rank(o) == 2 && len(crds) > 0 {
			if err := waitEstablished(ctx, c, crds); err != nil {
				return applied, err
			}
			crds = nil
		}
		u := o.DeepCopy()
		if err := c.Patch(ctx, u, client.Apply, client.FieldOwner("kubectl"), client.ForceOwnership); err != nil {
			if o.GetKind() == "PrecedentConfig" && strings.Contains(err.Error(), "failed calling webhook") {
				// Re-installing over stopped replicas: the PrecedentConfig's webhook fails closed until a
				// replica serves it (the README's second apply pass); the one stored stays in force.
				continue
			}
			return applied, fmt.Errorf("applying %s %s/%s from %s: %w", o.GetKind(), o.GetNamespace(), o.GetName(), r.Source, err)
		}
		if o.GetKind() == "CustomResourceDefinition" {
			crds = append(crds, o.GetName())
		}
		applied = append(applied, o.GetKind()+" "+strings.TrimPrefix(o.GetNamespace()+"/"+o.GetName(), "/"))
	}
	return applied, nil
}

func waitEstablished(ctx context.Context, c client.Client, names []string) error {
	return wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		for _, n := range names {
			crd := &apiextensionsv1.CustomResourceDefinition{}
			if err := c.Get(ctx, client.ObjectKey{Name: n}, crd); err != nil {
				return false, nil
			}
			established := false
			for _, cond := range crd.Status.Conditions {
				established = established || (cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue)
			}
			if !established {
				return false, nil
			}
		}
		return true, nil
	})
}

// PodSpecOf reads what the kubelet needs from the Deployment's first container.
func PodSpecOf(d *appsv1.Deployment) (PodSpec, error) {
	if len(d.Spec.Template.Spec.Containers) == 0 {
		return PodSpec{}, fmt.Errorf("the Deployment has no container")
	}
	ctr := d.Spec.Template.Spec.Containers[0]
	ports := map[string]int{}
	for _, p := range ctr.Ports {
		ports[p.Name] = int(p.ContainerPort)
	}
	s := PodSpec{Args: append([]string(nil), ctr.Args...), WebhookPort: ports["webhook"]}
	if s.WebhookPort == 0 {
		return s, fmt.Errorf("the container has no port named webhook")
	}
	if ctr.ReadinessProbe == nil || ctr.ReadinessProbe.HTTPGet == nil {
		return s, fmt.Errorf("the container has no HTTP readiness probe")
	}
	hg := ctr.ReadinessProbe.HTTPGet
	s.ReadyPath = hg.Path
	if s.HealthPort = hg.Port.IntValue(); s.HealthPort == 0 {
		s.HealthPort = ports[hg.Port.StrVal]
	}
	if s.HealthPort == 0 {
		return s, fmt.Errorf("the readiness probe's port %s is not a container port", hg.Port.String())
	}
	if ctr.Lifecycle != nil && ctr.Lifecycle.PreStop != nil && ctr.Lifecycle.PreStop.Sleep != nil {
		s.PreStop = time.Duration(ctr.Lifecycle.PreStop.Sleep.Seconds) * time.Second
	}
	s.Grace = 30 * time.Second
	if g := d.Spec.Template.Spec.TerminationGracePeriodSeconds; g != nil {
		s.Grace = time.Duration(*g) * time.Second
	}
	return s, nil
}

// Rule is one (apiGroup, resource[/subresource], verb) a role grants.
type Rule struct{ Group, Resource, Verb string }

func (r Rule) String() string {
	g := r.Group
	if g == "" {
		g = "core"
	}
	return r.Verb + " " + g + "/" + r.Resource
}

// GrantedTo lists the rules of the rendered Roles and ClusterRoles bound to the ServiceAccount
// namespace/name.
func (r *Rendered) GrantedTo(namespace, name string) ([]Rule, error) {
	roles := map[string][]rbacv1.PolicyRule{} // "Kind ns/name"
	bound := map[string]bool{}
	for _, o := range r.Objects {
		switch o.GetKind() {
		case "Role", "ClusterRole":
			role := &rbacv1.ClusterRole{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, role); err != nil {
				return nil, err
			}
			roles[o.GetKind()+" "+o.GetNamespace()+"/"+o.GetName()] = role.Rules
		case "RoleBinding", "ClusterRoleBinding":
			b := &rbacv1.RoleBinding{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, b); err != nil {
				return nil, err
			}
			for _, s := range b.Subjects {
				if s.Kind == rbacv1.ServiceAccountKind && s.Namespace == namespace && s.Name == name {
					ns := o.GetNamespace()
					if b.RoleRef.Kind == "ClusterRole" {
						ns = ""
					}
					bound[b.RoleRef.Kind+" "+ns+"/"+b.RoleRef.Name] = true
				}
			}
		}
	}
	seen := map[Rule]bool{}
	var out []Rule
	for key := range bound {
		for _, pr := range roles[key] {
			for _, g := range pr.APIGroups {
				for _, res := range pr.Resources {
					for _, v := range pr.Verbs {
						rule := Rule{g, res, v}
						if !seen[rule] {
							seen[rule] = true
							out = append(out, rule)
						}
					}
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out, nil
}

// ServiceAccountOf is the ServiceAccount the Deployment runs as.
func ServiceAccountOf(d *appsv1.Deployment) corev1.ObjectReference {
	return corev1.ObjectReference{Namespace: d.Namespace, Name: d.Spec.Template.Spec.ServiceAccountName}
}

// FetchRenderer downloads the modules RenderChart's `go run` needs and fills the build cache with
// its packages, so that it runs with no network (the suite runs in a network namespace of its own).
func FetchRenderer(repo string) error {
	cmd := exec.Command("go", "build", "-o", os.DevNull, "./cmd/render")
	cmd.Dir = filepath.Join(repo, "test", "chart")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building test/chart's renderer: %w: %s", err, out)
	}
	return nil
}

// RenderChart renders charts/precedent with the values in valuesYAML as `helm install` would, with
// Helm's own library (test/chart's module: `go run ./cmd/render`, as its dependencies stay out of
// the main module).
func RenderChart(repo, valuesYAML string) (*Rendered, error) {
	f, err := os.CreateTemp("", "precedent-values-*.yaml")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	if _, err := f.WriteString(valuesYAML); err != nil {
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	cmd := exec.Command("go", "run", "./cmd/render", f.Name())
	cmd.Dir = filepath.Join(repo, "test", "chart")
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("rendering the chart: %w: %s", err, ee.Stderr)
		}
		return nil, fmt.Errorf("rendering the chart: %w", err)
	}
	objs, err := decode(out)
	if err != nil {
		return nil, fmt.Errorf("reading the rendered chart: %w", err)
	}
	return &Rendered{Source: "charts/precedent (" + strings.TrimSpace(valuesYAML) + ")", Objects: objs}, nil
}
