package webhook_test

import (
	"context"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/vap"
	"github.com/precedent-dev/precedent/test/harness"
	"github.com/precedent-dev/precedent/webhook"
)

// install creates a policy and its binding, deleted when the test ends.
func install(t *testing.T, c client.Client, p *admissionregistrationv1.ValidatingAdmissionPolicy, b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) {
	t.Helper()
	for _, o := range []client.Object{p, b} {
		if err := c.Create(context.Background(), o); err != nil {
			t.Fatalf("the API server does not accept the exported %T %s: %v", o, o.GetName(), err)
		}
		t.Cleanup(func() { _ = c.Delete(context.Background(), o) })
	}
}

func TestExportedVAP(t *testing.T) {
	c, _ := h.NewClient()
	ctx := context.Background()

	t.Run("shipped kinds accepted by the API server", func(t *testing.T) {
		// (type-checking status is written by kube-controller-manager, which envtest does not run)
		for _, k := range settings.Defaults().Registry().Kinds() {
			p, b := vap.Policy(k, webhook.Plural(k.GVK.Kind))
			install(t, c, p, b)
			if sp, sb := vap.UnsetSwitch(k, webhook.Plural(k.GVK.Kind)); sp != nil {
				install(t, c, sp, sb)
			}
		}
	})

	t.Run("rejects bare rules mixed with defaults", func(t *testing.T) {
		harness.InstallSchemaless(t, c, "test.precedent.dev", "ExamplePolicy")
		k := policy.Kind{
			GVK:     schema.GroupVersionKind{Group: "test.precedent.dev", Version: "v1", Kind: "ExamplePolicy"},
			Profile: policy.ProfileDefaultsOverrides, RulesField: "rules", Sections: policy.AuthSections,
			TargetKinds: policy.DefaultTargetKinds,
		}
		p, b := vap.Policy(k, "examplepolicies")
		install(t, c, p, b)
		ns := harness.Namespace(t, c)
		mixed := `
apiVersion: test.precedent.dev/v1
kind: ExamplePolicy
metadata: {name: mixed, namespace: "{{ns}}"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: route}
  rules: {authorization: {a: {}}}
  defaults: {rules: {authorization: {b: {}}}}`
		want := "ValidatingAdmissionPolicy '" + vap.Name(k) + "' with binding '" + vap.Name(k) + "' denied request: spec.rules: Forbidden: bare rules cannot be combined"
		harness.EventuallyWithin(t, 20*time.Second, "the ValidatingAdmissionPolicy denies bare rules with defaults", func() (bool, string) {
			err := c.Create(ctx, harness.ObjectIn(ns, mixed), client.DryRunAll)
			return err != nil && strings.Contains(err.Error(), want), "create: " + harness.ErrString(err)
		})
		for name, doc := range map[string]string{
			"duplicate unset": `
apiVersion: test.precedent.dev/v1
kind: ExamplePolicy
metadata: {name: dup, namespace: "{{ns}}"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: route}
  unset: [authorization.a, authorization.a]`,
			"unset of an own rule": `
apiVersion: test.precedent.dev/v1
kind: ExamplePolicy
metadata: {name: own, namespace: "{{ns}}"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: route}
  defaults: {rules: {authorization: {a: {}}}}
  unset: [authorization.a]`,
			"target kind": `
apiVersion: test.precedent.dev/v1
kind: ExamplePolicy
metadata: {name: kind, namespace: "{{ns}}"}
spec:
  targetRef: {group: "", kind: Service, name: app}
  rules: {authorization: {a: {}}}`,
		} {
			if err := c.Create(ctx, harness.ObjectIn(ns, doc), client.DryRunAll); err == nil || !strings.Contains(err.Error(), "ValidatingAdmissionPolicy") {
				t.Errorf("%s: not rejected by the VAP: %v", name, harness.ErrString(err))
			}
		}
		valid := `
apiVersion: test.precedent.dev/v1
kind: ExamplePolicy
metadata: {name: valid, namespace: "{{ns}}"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: route}
  defaults: {strategy: merge, rules: {authorization: {a: {}}}}
  unset: [authentication.x]`
		if err := c.Create(ctx, harness.ObjectIn(ns, valid), client.DryRunAll); err != nil {
			t.Errorf("valid policy rejected: %v", err)
		}
	})
}
