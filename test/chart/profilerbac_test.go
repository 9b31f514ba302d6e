package chart

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/precedent-dev/precedent/internal/install"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/profile"
	"github.com/precedent-dev/precedent/test/harness"
)

// TestChartIdentityReadsKgatewayAndNGF: installed by the chart with the kinds of the kgateway and
// nginx-gateway-fabric components under extraKinds, the replica's identity (the chart's
// ServiceAccount, with the ClusterRole of _rbac.tpl and the extra kinds' rules) may get, list and
// watch TrafficPolicies, ClientSettingsPolicies, UpstreamSettingsPolicies and ObservabilityPolicies
// and what the two profiles read beyond them (ListenerSets; Services and GRPCRoutes), and may not
// write them nor their status (status: none, their controllers own it). The API server decides:
// SelfSubjectAccessReviews impersonating the ServiceAccount, and a real list of each kind, with the
// same-shape CRDs of test/crds, as the replica's informers make it.
func TestChartIdentityReadsKgatewayAndNGF(t *testing.T) {
	managed := componentKinds(t, "kgateway", "nginx-gateway-fabric")
	var extra []any
	for _, k := range managed {
		extra = append(extra, extraKind(k))
	}
	objs := renderChart(t, map[string]any{"extraKinds": extra}, false)
	ensureNamespace(t, namespace)
	var identity []*unstructured.Unstructured
	for _, o := range objs {
		switch o.GetKind() {
		case "ServiceAccount", "ClusterRole", "ClusterRoleBinding":
			if o.GetName() == "precedent" {
				identity = append(identity, o)
			}
		}
	}
	if len(identity) != 3 {
		t.Fatalf("want the chart's ServiceAccount, ClusterRole and ClusterRoleBinding precedent, got %v", kinds(identity))
	}
	harness.InstallCRDFiles(t, c, filepath.Join("test", "crds", "kgateway"))
	harness.InstallCRDFiles(t, c, filepath.Join("test", "crds", "nginx-gateway-fabric"))
	apply(t, identity, false)
	sa := asServiceAccount(t)
	type access struct{ group, resource, verb string }
	want := map[access]bool{}
	for _, k := range managed {
		res := profile.Plural(k.GVK.Kind)
		for _, v := range []string{"get", "list", "watch"} {
			want[access{k.GVK.Group, res, v}] = true
		}
		for _, v := range []string{"create", "update", "delete"} {
			want[access{k.GVK.Group, res, v}] = false
		}
		want[access{k.GVK.Group, res + "/status", "update"}] = false
	}
	for _, r := range []access{{"gateway.networking.k8s.io", "listenersets", "list"}, {"", "services", "list"}, {"gateway.networking.k8s.io", "grpcroutes", "watch"}} {
		want[r] = true
	}
	for a, allowed := range want {
		harness.EventuallyWithin(t, 30*time.Second, fmt.Sprintf("%s %s.%s allowed: %t", a.verb, a.resource, a.group, allowed), func() (bool, string) {
			got, why := reviewAccess(t, sa, a.group, a.resource, a.verb)
			return got == allowed, why
		})
	}
	t.Logf("%d accesses decided as wanted, for %d kinds", len(want), len(managed))
	for _, k := range managed {
		list := &unstructured.UnstructuredList{}
		list.SetAPIVersion(k.GVK.GroupVersion().String())
		list.SetKind(k.GVK.Kind + "List")
		if err := sa.List(context.Background(), list); err != nil {
			t.Errorf("listing %s as the chart's ServiceAccount: %v", k.GVK.Kind, err)
		}
	}
}

// componentKinds are the kinds of the named components (config/<name>/precedentconfig.yaml).
func componentKinds(t *testing.T, names ...string) []policy.Kind {
	t.Helper()
	cs, err := install.Components(root)
	if err != nil {
		t.Fatal(err)
	}
	var out []policy.Kind
	for _, n := range names {
		found := false
		for _, c := range cs {
			if c.Name() == n {
				out, found = append(out, c.Kinds...), true
			}
		}
		if !found {
			t.Fatalf("no component %s", n)
		}
	}
	return out
}

// asServiceAccount is a client of the control plane impersonating the chart's ServiceAccount, as
// a replica's in-cluster credentials authenticate it.
func asServiceAccount(t *testing.T) client.Client {
	t.Helper()
	cfg := rest.CopyConfig(env.Config)
	cfg.Impersonate = rest.ImpersonationConfig{
		UserName: "system:serviceaccount:" + namespace + ":precedent",
		Groups:   []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"},
	}
	sa, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return sa
}

// reviewAccess asks the API server whether the client's identity may verb group/resource (a
// subresource after a slash), in every namespace.
func reviewAccess(t *testing.T, cl client.Client, group, resource, verb string) (bool, string) {
	t.Helper()
	res, sub, _ := strings.Cut(resource, "/")
	r := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
		ResourceAttributes: &authorizationv1.ResourceAttributes{Group: group, Resource: res, Subresource: sub, Verb: verb},
	}}
	if err := cl.Create(context.Background(), r); err != nil {
		t.Fatalf("SelfSubjectAccessReview: %v", err)
	}
	return r.Status.Allowed, fmt.Sprintf("allowed %t: %s", r.Status.Allowed, r.Status.Reason)
}
