package webhook_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/test/harness"
)

// writeConfig creates or replaces the PrecedentConfig named name with spec.
func writeConfig(c client.Client, name string, spec map[string]interface{}) (*unstructured.Unstructured, error) {
	ctx := context.Background()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(settings.GVK)
	u.SetName(name)
	u.Object["spec"] = spec
	cur := &unstructured.Unstructured{}
	cur.SetGroupVersionKind(settings.GVK)
	err := c.Get(ctx, client.ObjectKey{Name: name}, cur)
	switch {
	case apierrors.IsNotFound(err):
		return u, c.Create(ctx, u)
	case err != nil:
		return nil, err
	}
	u.SetResourceVersion(cur.GetResourceVersion())
	return u, c.Update(ctx, u)
}

// setConfig writes the PrecedentConfig cluster and waits until the webhook's settings come from
// that very write (the informer has delivered it), so the next admission obeys it.
func setConfig(t *testing.T, c client.Client, spec map[string]interface{}) {
	t.Helper()
	u, err := writeConfig(c, settings.Name, spec)
	if err != nil {
		t.Fatalf("writing PrecedentConfig: %v", err)
	}
	harness.EventuallyWithin(t, 10*time.Second, "the webhook follows the PrecedentConfig", func() (bool, string) {
		return h.Live.ResourceVersion() == u.GetResourceVersion(), fmt.Sprintf("settings from resourceVersion %q, want %q", h.Live.ResourceVersion(), u.GetResourceVersion())
	})
}

func TestUnsetSwitch(t *testing.T) {
	c, _ := h.NewClient()
	ns := harness.Namespace(t, c)
	harness.Apply(t, c, ns, topology)
	t.Cleanup(func() { setConfig(t, c, map[string]interface{}{}) })
	policy := func(name string) *unstructured.Unstructured {
		return harness.ObjectIn(ns, `
apiVersion: policy.precedent.dev/v1alpha1
kind: AuthPolicy
metadata: {name: `+name+`, namespace: "{{ns}}"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: route}
  unset: [authorization.a]`)
	}

	setConfig(t, c, map[string]interface{}{"unsetEnabled": false})
	err := c.Create(context.Background(), policy("unset-off"))
	got, msg, ok := harness.Causes(err)
	want := []harness.Cause{{Type: metav1.CauseTypeForbidden, Field: "spec.unset"}}
	if !ok || !cmp.Equal(want, got) {
		t.Fatalf("with unset switched off: got %v (%v), want causes %v", got, harness.ErrString(err), want)
	}
	if !strings.Contains(msg, "unset is switched off in this cluster") {
		t.Errorf("message %q does not say unset is switched off", msg)
	}

	setConfig(t, c, map[string]interface{}{"unsetEnabled": true})
	if err := c.Create(context.Background(), policy("unset-on")); err != nil {
		t.Fatalf("with unset switched back on: %v", err)
	}
}

func TestInvalidConfigRejected(t *testing.T) {
	c, _ := h.NewClient()
	setConfig(t, c, map[string]interface{}{"warningLimit": int64(5)})
	t.Cleanup(func() { setConfig(t, c, map[string]interface{}{}) })
	good := h.Live.Current()
	kind := map[string]interface{}{"gvk": map[string]interface{}{"group": "kuadrant.io", "version": "v1", "kind": "AuthPolicy"}, "profile": "defaults-overrides", "rulesField": "rules"}
	tests := []struct {
		name string
		obj  string
		spec map[string]interface{}
		want []harness.Cause
	}{
		{name: "duplicate configured kind (webhook)", obj: settings.Name, spec: map[string]interface{}{"kinds": []interface{}{kind, kind}},
			want: []harness.Cause{{Type: metav1.CauseTypeFieldValueDuplicate, Field: "spec.kinds[1].gvk"}}},
		{name: "warning limit out of range (schema)", obj: settings.Name, spec: map[string]interface{}{"warningLimit": int64(0)},
			want: []harness.Cause{{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.warningLimit"}}},
		{name: "unknown check action (schema)", obj: settings.Name, spec: map[string]interface{}{"actions": map[string]interface{}{"unsetOverride": "ignore"}},
			want: []harness.Cause{{Type: metav1.CauseTypeFieldValueNotSupported, Field: "spec.actions.unsetOverride"}, harness.SchemaStopped}},
		{name: "not the singleton", obj: "other", spec: map[string]interface{}{},
			want: []harness.Cause{{Type: metav1.CauseTypeFieldValueInvalid, Field: "<nil>"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := writeConfig(c, tt.obj, tt.spec)
			got, _, ok := harness.Causes(err)
			if !ok {
				t.Fatalf("not rejected as Invalid: %v", harness.ErrString(err))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("causes (-want +got):\n%s\n%v", diff, err)
			}
			if diff := cmp.Diff(good, h.Live.Current()); diff != "" {
				t.Errorf("settings changed (-good +now):\n%s", diff)
			}
		})
	}
}

// TestKindManagedAtRuntime: a kind added to the PrecedentConfig is checked against its other
// policies from the first write the webhook sees, with no restart: a Gateway policy of the kind
// written before the change is in the cache, so unsetting its override is rejected, naming it.
func TestKindManagedAtRuntime(t *testing.T) {
	ctx := context.Background()
	c, _ := h.NewClient()
	ns := harness.Namespace(t, c)
	harness.Apply(t, c, ns, topology)
	const group = "limits.example.com"
	apiVersion := harness.InstallCRDCopy(t, c, "ratelimitpolicy.yaml", group)
	harness.Apply(t, c, ns, harness.GatewayLimits(apiVersion, "merge"))
	t.Cleanup(func() {
		setConfig(t, c, map[string]interface{}{})
		if err := h.Env.RegisterWebhooks(ctx, c, settings.Defaults().Registry().Kinds()); err != nil {
			t.Errorf("registering the webhooks for the shipped kinds again: %v", err)
		}
	})
	setConfig(t, c, map[string]interface{}{"kinds": []interface{}{harness.LimitsKind(group)}})
	// The webhook configurations must route the kind's writes to the webhook (docs/configuration.md: a configured
	// kind needs its rule), as an admin does with kubectl.
	if err := h.Env.RegisterWebhooks(ctx, c, h.Live.Current().Registry().Kinds()); err != nil {
		t.Fatal(err)
	}
	route := `
apiVersion: ` + apiVersion + `
kind: RateLimitPolicy
metadata: {name: route-limits, namespace: "` + ns + `"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: route}
  limits: {per-user: {rates: [{limit: 5, window: 1m}]}}
  unset: [global]`
	want := "spec.unset[0]: Forbidden: PRC-E023 rule global is set by the overrides of RateLimitPolicy " + ns + "/gw-limits and cannot be unset"
	harness.Eventually(t, "the unset of the Gateway policy's override is rejected", func() (bool, string) {
		denied, msg := harness.Denied(ctx, c, route)
		return denied && strings.Contains(msg, want), msg
	})
}
