package kuma_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/test/harness"
)

// kumaKinds is the one line per kind that manages Kuma's own mesh kinds.
var kumaKinds = []interface{}{
	map[string]interface{}{"gvk": map[string]interface{}{"group": "kuma.io", "version": "v1alpha1", "kind": "MeshTimeout"}, "profile": "mesh"},
	map[string]interface{}{"gvk": map[string]interface{}{"group": "kuma.io", "version": "v1alpha1", "kind": "MeshTrafficPermission"}, "profile": "mesh"},
}

// kumaKindsAt is kumaKinds with each line's version set to version ("" leaves it out: the newest).
func kumaKindsAt(version string) []interface{} {
	out := make([]interface{}, 0, len(kumaKinds))
	for _, k := range kumaKinds {
		line := map[string]interface{}{}
		for f, v := range k.(map[string]interface{}) {
			line[f] = v
		}
		if version != "" {
			line["version"] = version
		}
		out = append(out, line)
	}
	return out
}

// webProxy is the Dataplane web-1 of the test's namespace, at address, with an outbound to backend.
func webProxy(address string) string {
	return `
apiVersion: kuma.io/v1alpha1
kind: Dataplane
metadata: {name: web-1, namespace: "{{ns}}"}
mesh: default
spec:
  networking:
    address: ` + address + `
    inbound: [{port: 8080, tags: {kuma.io/service: web}}]
    outbound: [{port: 8081, tags: {kuma.io/service: backend}}]`
}

// timeout is a kuma.io MeshTimeout in kuma-system (a system policy: it reaches every proxy of the
// mesh) whose one to[] item sets connectionTimeout for every outbound.
func timeout(name, connect string) *unstructured.Unstructured {
	return harness.Object(`
apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata: {name: ` + name + `, namespace: kuma-system, labels: {kuma.io/mesh: default}}
spec:
  targetRef: {kind: Mesh}
  to:
  - targetRef: {kind: Mesh}
    default: {connectionTimeout: ` + connect + `}`)
}

// TestKumaKinds: with one line per kind, a kuma.io write is warned about elements that never take
// effect on the mesh's Dataplanes, in the order Kuma enforces (of two policies at one level, the
// name that sorts first wins: pkg/plugins/policies/core/matchers SortByTargetRef); the status
// Kuma's control plane writes on its policies stays untouched while Dataplanes and policies change,
// with no status write from Precedent (counted by the API server).
func TestKumaKinds(t *testing.T) {
	c, rec := h.NewClient()
	ctx := context.Background()
	ns := harness.Namespace(t, c)
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "kuma-system"}}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		h.SetConfig(t, c, map[string]interface{}{})
		if err := h.Env.RegisterWebhooks(ctx, c, settings.Defaults().Registry().Kinds()); err != nil {
			t.Errorf("registering the webhooks for the shipped kinds again: %v", err)
		}
	})
	h.SetConfig(t, c, map[string]interface{}{"kinds": kumaKinds})
	if err := h.Env.RegisterWebhooks(ctx, c, h.Live.Current().Registry().Kinds()); err != nil {
		t.Fatal(err)
	}
	harness.Apply(t, c, ns, webProxy("127.0.0.10"))

	first := timeout("aaa-timeouts", "2s")
	if err := c.Create(ctx, first); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Delete(context.Background(), first) })

	// Kuma's control plane owns the status of its policies: one written its way stays as it is.
	kumaStatus := map[string]interface{}{"conditions": []interface{}{map[string]interface{}{
		"type": "Ready", "status": "True", "reason": "Ready", "message": "written by the control plane", "lastTransitionTime": "2026-01-01T00:00:00Z"}}}
	cur := first.DeepCopy()
	if err := c.Get(ctx, client.ObjectKeyFromObject(cur), cur); err != nil {
		t.Fatal(err)
	}
	cur.Object["status"] = kumaStatus
	if err := c.Status().Update(ctx, cur); err != nil {
		t.Fatalf("writing the status the control plane's way: %v", err)
	}
	writesBefore, err := harness.StatusWrites(ctx, h.Env.Config, "kuma.io", "meshtimeouts")
	if err != nil {
		t.Fatal(err)
	}

	t.Run("a later-named policy at the same level never takes effect", func(t *testing.T) {
		want := []string{"PRC-W014 MeshTimeout kuma-system/zzz-timeouts never takes effect on any Dataplane: every field it sets is decided by kuma-system/aaa-timeouts"}
		harness.DryRunWarnings(t, c, rec, timeout("zzz-timeouts", "9s"), want)
	})
	t.Run("an earlier-named one takes effect and shadows the first", func(t *testing.T) {
		want := []string{"PRC-W014 MeshTimeout kuma-system/aaa-timeouts never takes effect on any Dataplane: every field it sets is decided by kuma-system/0-timeouts"}
		harness.DryRunWarnings(t, c, rec, timeout("0-timeouts", "3s"), want)
	})

	t.Run("Kuma's status stays untouched, with no status write", func(t *testing.T) {
		obj := first.DeepCopy()
		if err := c.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
			t.Fatal(err)
		}
		obj.SetLabels(map[string]string{"kuma.io/mesh": "default", "touched": "yes"})
		if err := c.Update(ctx, obj); err != nil {
			t.Fatal(err)
		}
		dp := &unstructured.Unstructured{}
		dp.SetAPIVersion("kuma.io/v1alpha1")
		dp.SetKind("Dataplane")
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web-1"}, dp); err != nil {
			t.Fatal(err)
		}
		dp.SetLabels(map[string]string{"touched": "yes"})
		if err := c.Update(ctx, dp); err != nil {
			t.Fatal(err)
		}
		harness.Consistently(t, 3*time.Second, "the status Kuma's control plane wrote stays as it is", func() (bool, string) {
			got := first.DeepCopy()
			if err := c.Get(ctx, client.ObjectKeyFromObject(got), got); err != nil {
				return false, err.Error()
			}
			if diff := cmp.Diff(kumaStatus, got.Object["status"]); diff != "" {
				return false, "status (-written +now):\n" + diff
			}
			return true, ""
		})
		writesAfter, err := harness.StatusWrites(ctx, h.Env.Config, "kuma.io", "meshtimeouts")
		if err != nil {
			t.Fatal(err)
		}
		if writesAfter != writesBefore {
			t.Errorf("%v status writes on kuma.io meshtimeouts while Precedent ran, want 0", writesAfter-writesBefore)
		}
	})
}
