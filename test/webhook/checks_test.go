package webhook_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/precedent-dev/precedent/test/harness"
)

// topology is a Gateway gw (routes from all namespaces) and an HTTPRoute route on it, in {{ns}}.
const topology = `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: "{{ns}}"}
spec:
  gatewayClassName: example
  listeners:
  - {name: http, port: 80, protocol: HTTP, allowedRoutes: {namespaces: {from: All}}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: route, namespace: "{{ns}}"}
spec:
  parentRefs: [{name: gw}]
  rules:
  - name: main
    backendRefs: [{name: app, port: 8080}]`

// rejection is what a rejected write must come back with: the Invalid status, one cause per field,
// and a message that says what is wrong (and names the other policy when one is involved).
type rejection struct {
	causes  []harness.Cause
	message string
}

// assertRejected writes obj with a server-side dry-run and for real, asserts the same rejection both
// times, and that nothing was persisted. It polls the dry-run until the rejection appears, since the
// webhook's cache follows the objects the test just created.
func assertRejected(t *testing.T, c client.Client, obj *unstructured.Unstructured, want rejection, update bool) {
	t.Helper()
	ctx := context.Background()
	write := func(dry bool) error {
		o := obj.DeepCopy()
		var opts []client.CreateOption
		if dry {
			opts = append(opts, client.DryRunAll)
		}
		if update {
			cur := &unstructured.Unstructured{}
			cur.SetGroupVersionKind(o.GroupVersionKind())
			if err := c.Get(ctx, client.ObjectKeyFromObject(o), cur); err != nil {
				return err
			}
			o.SetResourceVersion(cur.GetResourceVersion())
			if dry {
				return c.Update(ctx, o, client.DryRunAll)
			}
			return c.Update(ctx, o)
		}
		return c.Create(ctx, o, opts...)
	}
	check := func(err error) (bool, string) {
		got, msg, ok := harness.Causes(err)
		if !ok {
			return false, "not an Invalid status: " + harness.ErrString(err)
		}
		if diff := cmp.Diff(want.causes, got); diff != "" {
			return false, "causes (-want +got):\n" + diff + "\nmessage: " + msg
		}
		if !strings.Contains(msg, want.message) {
			return false, "message " + msg + " lacks " + want.message
		}
		return true, ""
	}
	harness.EventuallyWithin(t, 10*time.Second, "the dry-run is rejected", func() (bool, string) { return check(write(true)) })
	if ok, state := check(write(false)); !ok {
		t.Fatalf("real write: %s", state)
	}
	if update {
		return
	}
	cur := &unstructured.Unstructured{}
	cur.SetGroupVersionKind(obj.GroupVersionKind())
	if err := c.Get(ctx, client.ObjectKeyFromObject(obj), cur); !apierrors.IsNotFound(err) {
		t.Fatalf("rejected object persisted (get: %v)", err)
	}
}

func TestStatelessRejections(t *testing.T) {
	c, _ := h.NewClient()
	ns := harness.Namespace(t, c)
	harness.Apply(t, c, ns, topology)
	tests := []struct {
		name string
		obj  string
		want rejection
	}{
		{
			name: "target kind not allowed",
			obj: `
apiVersion: policy.precedent.dev/v1alpha1
kind: AuthPolicy
metadata: {name: p, namespace: "{{ns}}"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: TCPRoute, name: route}
  rules: {authorization: {a: {opa: {rego: allow = true}}}}`,
			want: rejection{causes: []harness.Cause{{Type: metav1.CauseTypeFieldValueNotSupported, Field: "spec.targetRef.kind"}}, message: `Unsupported value: "TCPRoute"`},
		},
		{
			name: "target group not allowed",
			obj: `
apiVersion: policy.precedent.dev/v1alpha1
kind: RateLimitPolicy
metadata: {name: p, namespace: "{{ns}}"}
spec:
  targetRef: {group: "", kind: Service, name: app}
  limits: {l: {rates: [{limit: 10, window: 1m}]}}`,
			want: rejection{causes: []harness.Cause{{Type: metav1.CauseTypeFieldValueNotSupported, Field: "spec.targetRef.group"}}, message: "gateway.networking.k8s.io"},
		},
		{
			name: "bare rules with defaults (CRD schema)",
			obj: `
apiVersion: policy.precedent.dev/v1alpha1
kind: AuthPolicy
metadata: {name: p, namespace: "{{ns}}"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: route}
  rules: {authorization: {a: {opa: {rego: allow = true}}}}
  defaults: {rules: {authorization: {b: {opa: {rego: allow = true}}}}}`,
			want: rejection{causes: []harness.Cause{{Type: metav1.CauseTypeForbidden, Field: "spec.rules"}}, message: "move them into spec.defaults"},
		},
		{
			name: "strategy not atomic or merge (CRD schema)",
			obj: `
apiVersion: policy.precedent.dev/v1alpha1
kind: RateLimitPolicy
metadata: {name: p, namespace: "{{ns}}"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  defaults: {strategy: replace, limits: {l: {rates: [{limit: 10, window: 1m}]}}}`,
			want: rejection{causes: []harness.Cause{{Type: metav1.CauseTypeFieldValueNotSupported, Field: "spec.defaults.strategy"}, harness.SchemaStopped}, message: `Unsupported value: "replace"`},
		},
		{
			name: "when does not compile",
			obj: `
apiVersion: policy.precedent.dev/v1alpha1
kind: RateLimitPolicy
metadata: {name: p, namespace: "{{ns}}"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  overrides: {when: "self.limits.x.rates[0].limit >", limits: {l: {rates: [{limit: 10, window: 1m}]}}}`,
			want: rejection{causes: []harness.Cause{{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.overrides.when"}}, message: "spec.overrides.when: Invalid value"},
		},
		{
			name: "when is not boolean",
			obj: `
apiVersion: policy.precedent.dev/v1alpha1
kind: RateLimitPolicy
metadata: {name: p, namespace: "{{ns}}"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  overrides: {when: "size(self.limits)", limits: {l: {rates: [{limit: 10, window: 1m}]}}}`,
			want: rejection{causes: []harness.Cause{{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.overrides.when"}}, message: "bool"},
		},
		{
			name: "policy with nothing in it",
			obj: `
apiVersion: policy.precedent.dev/v1alpha1
kind: AuthPolicy
metadata: {name: p, namespace: "{{ns}}"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: route}`,
			want: rejection{causes: []harness.Cause{{Type: metav1.CauseTypeFieldValueRequired, Field: "spec"}}, message: "spec.rules, spec.defaults, spec.overrides or spec.unset"},
		},
		{
			name: "GEP-713 policy with neither default nor override (CRD schema)",
			obj: `
apiVersion: policy.precedent.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: p, namespace: "{{ns}}"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}`,
			want: rejection{causes: []harness.Cause{{Type: metav1.CauseTypeFieldValueRequired, Field: "spec"}}, message: "at least one of spec.default or spec.override is required"},
		},
		{
			name: "unset with duplicates",
			obj: `
apiVersion: policy.precedent.dev/v1alpha1
kind: AuthPolicy
metadata: {name: p, namespace: "{{ns}}"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: route}
  unset: [authorization.a, authorization.a]`,
			want: rejection{causes: []harness.Cause{{Type: metav1.CauseTypeFieldValueDuplicate, Field: "spec.unset[1]"}}, message: `spec.unset[1]: Duplicate value: "authorization.a"`},
		},
		{
			name: "unset with a malformed rule id",
			obj: `
apiVersion: policy.precedent.dev/v1alpha1
kind: AuthPolicy
metadata: {name: p, namespace: "{{ns}}"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: route}
  unset: [b]`,
			want: rejection{causes: []harness.Cause{{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.unset[0]"}}, message: "must be <section>.<name>"},
		},
		{
			name: "unset of a rule the policy declares",
			obj: `
apiVersion: policy.precedent.dev/v1alpha1
kind: RateLimitPolicy
metadata: {name: p, namespace: "{{ns}}"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: route}
  defaults: {limits: {l: {rates: [{limit: 10, window: 1m}]}}}
  unset: [l]`,
			want: rejection{causes: []harness.Cause{{Type: metav1.CauseTypeForbidden, Field: "spec.unset[0]"}}, message: "rule l is declared by this policy"},
		},
		{
			name: "several errors, one cause each",
			obj: `
apiVersion: policy.precedent.dev/v1alpha1
kind: AuthPolicy
metadata: {name: p, namespace: "{{ns}}"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: TCPRoute, name: route}
  unset: [b, authorization.a, authorization.a]`,
			want: rejection{causes: []harness.Cause{
				{Type: metav1.CauseTypeFieldValueNotSupported, Field: "spec.targetRef.kind"},
				{Type: metav1.CauseTypeFieldValueInvalid, Field: "spec.unset[0]"},
				{Type: metav1.CauseTypeFieldValueDuplicate, Field: "spec.unset[2]"},
			}, message: `admission webhook "policies.precedent.dev" denied the request: AuthPolicy.policy.precedent.dev "p" is invalid`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertRejected(t, c, harness.ObjectIn(ns, tt.obj), tt.want, false)
		})
	}
}

func TestStatefulRejections(t *testing.T) {
	c, _ := h.NewClient()
	gwNS := harness.Namespace(t, c)
	harness.Apply(t, c, gwNS, topology)
	routeNS := harness.Namespace(t, c)
	harness.Create(t, c, harness.ObjectIn(gwNS, `
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: shop, namespace: "`+routeNS+`"}
spec:
  parentRefs: [{name: gw, namespace: "{{ns}}"}]
  rules: [{name: cart, backendRefs: [{name: cart, port: 8080}]}]`), harness.ObjectIn(gwNS, `
apiVersion: policy.precedent.dev/v1alpha1
kind: AuthPolicy
metadata: {name: gw-policy, namespace: "{{ns}}"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  overrides: {rules: {authorization: {b: {opa: {rego: allow = true}}}}}
  defaults: {rules: {authentication: {a: {apiKey: {}}}}}`))

	t.Run("unset of an override set by a Gateway policy in another namespace", func(t *testing.T) {
		assertRejected(t, c, harness.ObjectIn(routeNS, `
apiVersion: policy.precedent.dev/v1alpha1
kind: AuthPolicy
metadata: {name: route-policy, namespace: "{{ns}}"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: shop}
  unset: [authentication.a, authorization.b]`), rejection{
			causes:  []harness.Cause{{Type: metav1.CauseTypeForbidden, Field: "spec.unset[1]"}},
			message: "spec.unset[1]: Forbidden: PRC-E023 rule authorization.b is set by the overrides of AuthPolicy " + gwNS + "/gw-policy and cannot be unset",
		}, false)
	})

	t.Run("update that adds an unset of an override", func(t *testing.T) {
		harness.Create(t, c, harness.ObjectIn(routeNS, `
apiVersion: policy.precedent.dev/v1alpha1
kind: AuthPolicy
metadata: {name: later, namespace: "{{ns}}"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: shop}
  unset: [authentication.a]`))
		assertRejected(t, c, harness.ObjectIn(routeNS, `
apiVersion: policy.precedent.dev/v1alpha1
kind: AuthPolicy
metadata: {name: later, namespace: "{{ns}}"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: shop}
  unset: [authorization.b]`), rejection{
			causes:  []harness.Cause{{Type: metav1.CauseTypeForbidden, Field: "spec.unset[0]"}},
			message: gwNS + "/gw-policy",
		}, true)
	})

	t.Run("second policy on a target when one policy per target is configured", func(t *testing.T) {
		setConfig(t, c, map[string]interface{}{"onePolicyPerTarget": true})
		t.Cleanup(func() { setConfig(t, c, map[string]interface{}{}) })
		assertRejected(t, c, harness.ObjectIn(gwNS, `
apiVersion: policy.precedent.dev/v1alpha1
kind: AuthPolicy
metadata: {name: second, namespace: "{{ns}}"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  defaults: {rules: {authorization: {z: {opa: {rego: allow = true}}}}}`), rejection{
			causes:  []harness.Cause{{Type: metav1.CauseTypeForbidden, Field: "spec.targetRef"}},
			message: "AuthPolicy " + gwNS + "/gw-policy already targets",
		}, false)
	})
}
