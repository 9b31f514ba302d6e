package reconcile

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/printable"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/topology"
)

// Reasons of the <Kind>Affected condition (the RFC's "Policy discoverability").
const (
	ReasonAffected          = "Affected"
	ReasonPartiallyAffected = "PartiallyAffected"
	ReasonUnaffected        = "Unaffected"
)

// AffectedType is the condition type written on Gateways for a policy kind: <Kind>Affected,
// qualified by the kind's own group, so two kinds of one name in different groups (a shipped kind
// and a configured one) do not write the same condition.
func AffectedType(k policy.Kind) string { return k.GVK.Group + "/" + k.GVK.Kind + "Affected" }

// fieldManager owns only Precedent's condition entries of a Gateway's status (server-side apply on
// the status subresource: the Gateway's own controller keeps its conditions).
const fieldManager = "precedent-affected"

// AffectedReconciler keeps the <Kind>Affected condition on Gateways targeted by policies of a kind.
type AffectedReconciler struct {
	Reconciler
}

func (r *AffectedReconciler) setup(mgr ctrl.Manager) error {
	b := ctrl.NewControllerManagedBy(mgr)
	if _, err := mgr.GetRESTMapper().RESTMapping(settings.GVK.GroupKind(), settings.GVK.Version); err == nil {
		b = b.WatchesRawSource(r.settingsSource(mgr, r.gatewayRequests))
	}
	return b.
		Named("affected-"+r.name()).
		Watches(&gwv1.Gateway{}, r.after(func(_ context.Context, o client.Object) []reconcile.Request {
			return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: o.GetName()}}}
		})).
		// A policy's status write changes no Gateway's condition: only spec changes (new generation),
		// creations and deletions count.
		Watches(r.newObject(), r.after(r.targetGateways), builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Complete(r)
}

// gatewayRequests lists every Gateway (from the cache), after a settings change.
func (r *AffectedReconciler) gatewayRequests(ctx context.Context) []reconcile.Request {
	list := &gwv1.GatewayList{}
	if err := r.reader().List(ctx, list); err != nil {
		r.Log.Error(err, "listing Gateways after a settings change")
		return nil
	}
	out := make([]reconcile.Request, 0, len(list.Items))
	for i := range list.Items {
		out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&list.Items[i])})
	}
	return out
}

// targetGateways maps a policy event to the Gateways it targets (directly or by a listener).
func (r *AffectedReconciler) targetGateways(_ context.Context, obj client.Object) []reconcile.Request {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil
	}
	p, _ := policy.View(r.Kind, u)
	seen := map[types.NamespacedName]bool{}
	var out []reconcile.Request
	for _, t := range effective.TargetsOf(p) {
		n := types.NamespacedName{Namespace: t.Namespace, Name: t.Name}
		if t.Kind == "Gateway" && !seen[n] {
			seen[n] = true
			out = append(out, reconcile.Request{NamespacedName: n})
		}
	}
	return out
}

// Reconcile applies the condition when its meaning changed.
func (r *AffectedReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	if !r.writes() {
		return reconcile.Result{}, nil
	}
	gw := &gwv1.Gateway{}
	if err := r.reader().Get(ctx, req.NamespacedName, gw); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	snap, s, err := r.snapshot()
	if err != nil {
		return reconcile.Result{}, err
	}
	if !s.AffectedCondition {
		return reconcile.Result{}, nil
	}
	// The folds read the policies accepted only: one not accepted affects nothing.
	want := affected(r.acceptance.foldsOver(snap, policiesAt(snap, gw), s, r.viewErrors(ctx, r.Kind)), gw)
	want.Type = AffectedType(r.Kind)
	want.ObservedGeneration = gw.Generation
	if want.Reason == ReasonUnaffected && meta.FindStatusCondition(gw.Status.Conditions, want.Type) == nil {
		return reconcile.Result{}, nil // never affected: nothing to say (the RFC adds the condition to targeted objects)
	}
	if cur := meta.FindStatusCondition(gw.Status.Conditions, want.Type); cur != nil &&
		cur.Status == want.Status && cur.Reason == want.Reason && cur.Message == want.Message && cur.ObservedGeneration == want.ObservedGeneration {
		return reconcile.Result{}, nil
	}
	want.LastTransitionTime = metav1.Now()
	if cur := meta.FindStatusCondition(gw.Status.Conditions, want.Type); cur != nil && cur.Status == want.Status {
		want.LastTransitionTime = cur.LastTransitionTime
	}
	cond, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&want)
	if err != nil {
		return reconcile.Result{}, err
	}
	patch := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "gateway.networking.k8s.io/v1", "kind": "Gateway",
		"metadata": map[string]interface{}{"name": gw.Name, "namespace": gw.Namespace},
		"status":   map[string]interface{}{"conditions": []interface{}{cond}},
	}}
	if err := r.Client.Status().Patch(ctx, patch, client.Apply, client.FieldOwner(fieldManager+"-"+strings.ToLower(r.Kind.GVK.Kind)), client.ForceOwnership); err != nil {
		return reconcile.Result{}, fmt.Errorf("applying %s on Gateway %s: %w", want.Type, req.NamespacedName, err)
	}
	statusWrites.WithLabelValues("Gateway").Inc()
	return reconcile.Result{}, nil
}

// policiesAt are the policies of snap that target gw or one of its listeners.
func policiesAt(snap *effective.Snapshot, gw *gwv1.Gateway) []*policy.Policy {
	base := topology.Target{Kind: "Gateway", Namespace: gw.Namespace, Name: gw.Name}
	ps := slices.Clone(snap.At(base))
	for _, l := range gw.Spec.Listeners {
		t := base
		t.Section = string(l.Name)
		ps = append(ps, snap.At(t)...)
	}
	return ps
}

// affected computes the condition for one Gateway: the policies of the kind that target it (or one
// of its listeners) and are enforced.
func affected(snap *effective.Snapshot, gw *gwv1.Gateway) metav1.Condition {
	whole := map[string]bool{}
	sections := map[string]map[string]bool{}
	base := topology.Target{Kind: "Gateway", Namespace: gw.Namespace, Name: gw.Name}
	enforcedP := func(p *policy.Policy) bool { return isEnforced(snap, p) }
	for _, p := range snap.At(base) {
		if enforcedP(p) {
			whole[printable.String(p.Ref.String())] = true
		}
	}
	for _, l := range gw.Spec.Listeners {
		t := base
		t.Section = string(l.Name)
		for _, p := range snap.At(t) {
			ref := printable.String(p.Ref.String())
			if whole[ref] || !enforcedP(p) {
				continue
			}
			add(sections, ref, printable.String(string(l.Name)))
		}
	}
	kind := snap.Kind.GVK.Kind
	switch {
	case len(whole) > 0:
		return metav1.Condition{Status: metav1.ConditionTrue, Reason: ReasonAffected,
			Message: fmt.Sprintf("The object is affected by %s %s", kind, strings.Join(sortedKeys(whole), ", "))}
	case len(sections) > 0:
		var parts []string
		for _, ref := range sortedKeys(sections) {
			ls := sortedKeys(sections[ref])
			sort.Strings(ls)
			parts = append(parts, fmt.Sprintf("%s (%s)", ref, strings.Join(ls, ", ")))
		}
		return metav1.Condition{Status: metav1.ConditionTrue, Reason: ReasonPartiallyAffected,
			Message: fmt.Sprintf("The following listeners of the object are affected by %s %s", kind, strings.Join(parts, "; "))}
	}
	return metav1.Condition{Status: metav1.ConditionFalse, Reason: ReasonUnaffected, Message: fmt.Sprintf("The object is not affected by any %s", kind)}
}

// setupAffected registers the Affected controller of one kind.
func setupAffected(mgr ctrl.Manager, r *Reconciler, log logr.Logger) error {
	a := &AffectedReconciler{Reconciler: *r}
	a.Log = log
	return a.setup(mgr)
}
