package access

import (
	"errors"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/precedent-dev/precedent/topology"
)

// Topology is the part of the Gateway API graph the access profile needs: which Backends sit behind
// which Gateways (Gateway ← HTTPRoute parentRefs, HTTPRoute backendRefs → Backend). Objects are named
// "namespace/name". The zero value is empty and ready to use.
type Topology struct {
	backends map[string][]string // gateway → backends behind it, sorted, unique
	gateways map[string][]string // backend → gateways in front of it, sorted, unique
}

// Link records that backend is reachable through gateway.
func (t *Topology) Link(gateway, backend string) {
	if t.backends == nil {
		t.backends, t.gateways = map[string][]string{}, map[string][]string{}
	}
	t.backends[gateway] = insert(t.backends[gateway], backend)
	t.gateways[backend] = insert(t.gateways[backend], gateway)
}

// BackendsBehind returns the backends reachable through gateway, sorted.
func (t *Topology) BackendsBehind(gateway string) []string { return t.backends[gateway] }

// GatewaysInFront returns the gateways through which backend is reachable, sorted.
func (t *Topology) GatewaysInFront(backend string) []string { return t.gateways[backend] }

func insert(s []string, v string) []string {
	i, found := slices.BinarySearch(s, v)
	if found {
		return s
	}
	return slices.Insert(s, i, v)
}

// NewTopology builds the topology from Gateways and HTTPRoutes (other objects are ignored). A route
// attaches to a Gateway through a parentRef when a listener of the Gateway (the one named by
// sectionName, if any) admits routes of its namespace (allowedRoutes.namespaces: Same by default,
// All, or Selector, assumed to match since namespace labels are not known offline) and of kind
// HTTPRoute. A parentRef to a Gateway not among objs attaches as if the Gateway admitted it.
// Cross-namespace backendRefs are taken as granted (ReferenceGrants are not modelled). Objects that
// cannot be decoded are skipped and reported in the error.
func NewTopology(objs []*unstructured.Unstructured, s Settings) (Topology, error) {
	var errs []error
	gateways := map[string]*gatewayv1.Gateway{}
	var routes []*gatewayv1.HTTPRoute
	for _, u := range objs {
		gvk := u.GroupVersionKind()
		if gvk.Group != GatewayGroup {
			continue
		}
		switch gvk.Kind {
		case "Gateway":
			var gw gatewayv1.Gateway
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &gw); err != nil {
				errs = append(errs, fmt.Errorf("Gateway %s/%s: %w", u.GetNamespace(), u.GetName(), err))
				continue
			}
			gateways[gw.Namespace+"/"+gw.Name] = &gw
		case "HTTPRoute":
			var r gatewayv1.HTTPRoute
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &r); err != nil {
				errs = append(errs, fmt.Errorf("HTTPRoute %s/%s: %w", u.GetNamespace(), u.GetName(), err))
				continue
			}
			routes = append(routes, &r)
		}
	}
	gws := make([]*gatewayv1.Gateway, 0, len(gateways))
	for _, gw := range gateways {
		gws = append(gws, gw)
	}
	return TopologyOf(gws, routes, nil, s), errors.Join(errs...)
}

// TopologyOf builds the topology from typed Gateways and HTTPRoutes, by NewTopology's rules.
// nsLabels holds the labels of the namespaces, for allowedRoutes selectors; nil (offline, where
// they are not known) takes every selector as matching. The objects are only read.
func TopologyOf(gateways []*gatewayv1.Gateway, routes []*gatewayv1.HTTPRoute, nsLabels map[string]map[string]string, s Settings) Topology {
	s = s.withDefaults()
	byKey := make(map[string]*gatewayv1.Gateway, len(gateways))
	for _, gw := range gateways {
		byKey[gw.Namespace+"/"+gw.Name] = gw
	}
	var t Topology
	for _, r := range routes {
		var backends []string
		for _, rule := range r.Spec.Rules {
			for _, ref := range rule.BackendRefs {
				if string(deref(ref.Group, "")) != s.BackendGroup || string(deref(ref.Kind, "Service")) != s.BackendKind {
					continue
				}
				backends = append(backends, string(deref(ref.Namespace, gatewayv1.Namespace(r.Namespace)))+"/"+string(ref.Name))
			}
		}
		if len(backends) == 0 {
			continue
		}
		for _, pr := range r.Spec.ParentRefs {
			if deref(pr.Group, GatewayGroup) != GatewayGroup || deref(pr.Kind, GatewayKind) != GatewayKind {
				continue
			}
			key := string(deref(pr.Namespace, gatewayv1.Namespace(r.Namespace))) + "/" + string(pr.Name)
			if gw, ok := byKey[key]; ok && !admits(gw, pr, r.Namespace, nsLabels) {
				continue
			}
			for _, b := range backends {
				t.Link(key, b)
			}
		}
	}
	return t
}

// admits reports whether some listener of gw selected by pr admits an HTTPRoute from namespace,
// by the topology package's rules; with nsLabels nil, a Selector is taken as matching.
func admits(gw *gatewayv1.Gateway, pr gatewayv1.ParentReference, namespace string, nsLabels map[string]map[string]string) bool {
	matches := func(sel *metav1.LabelSelector) bool {
		if nsLabels == nil {
			return true
		}
		ls, err := metav1.LabelSelectorAsSelector(sel)
		return err == nil && ls.Matches(labels.Set(nsLabels[namespace]))
	}
	for _, l := range gw.Spec.Listeners {
		if topology.SelectsListener(pr, l) && topology.Admits(l, gw.Namespace, "HTTPRoute", namespace, matches) {
			return true
		}
	}
	return false
}

func deref[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}
