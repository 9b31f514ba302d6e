package gen

import (
	"bytes"
	"fmt"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/topology"
)

// Objects returns the world as unstructured objects ready to create in an API server, in an order
// that creates nothing before what it lives in: the namespaces, the Gateways, the HTTPRoutes, then
// the policies. Each policy carries its generated creationTimestamp (the API server replaces it; an
// in-memory state keeps the generated precedence).
func (w World) Objects() ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	for _, ns := range w.Namespaces() {
		out = append(out, &unstructured.Unstructured{Object: map[string]interface{}{
			"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]interface{}{"name": ns},
		}})
	}
	for i := range w.Input.Gateways {
		u, err := typed(&w.Input.Gateways[i], "Gateway")
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	for i := range w.Input.HTTPRoutes {
		u, err := typed(&w.Input.HTTPRoutes[i], "HTTPRoute")
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	for _, p := range w.Policies {
		u, err := PolicyObject(p)
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, nil
}

// Namespaces lists the namespaces the world's objects live in, sorted.
func (w World) Namespaces() []string {
	seen := map[string]bool{}
	for _, g := range w.Input.Gateways {
		seen[g.Namespace] = true
	}
	for _, r := range w.Input.HTTPRoutes {
		seen[r.Namespace] = true
	}
	for _, p := range w.Policies {
		seen[p.Ref.Namespace] = true
	}
	out := make([]string, 0, len(seen))
	for ns := range seen {
		out = append(out, ns)
	}
	sort.Strings(out)
	return out
}

// PolicyObject renders a generated policy of a defaults-overrides kind as the object a user would
// write: spec.targetRef, the bare rules, the defaults and overrides blocks, and unset.
func PolicyObject(p *policy.Policy) (*unstructured.Unstructured, error) {
	k := p.Kind
	if k.Profile != policy.ProfileDefaultsOverrides {
		return nil, fmt.Errorf("rendering %s %s: only defaults-overrides kinds are generated", k.GVK.Kind, p.Ref)
	}
	if len(p.Targets) != 1 {
		return nil, fmt.Errorf("rendering %s %s: want one target, have %d", k.GVK.Kind, p.Ref, len(p.Targets))
	}
	t := p.Targets[0]
	target := map[string]interface{}{"group": t.Group, "kind": t.Kind, "name": t.Name}
	if t.SectionName != "" {
		target["sectionName"] = t.SectionName
	}
	spec := map[string]interface{}{"targetRef": target}
	if p.Bare != nil {
		for f, v := range policy.BareForm(k, p.Bare.Rules) {
			spec[f] = v
		}
	}
	for name, b := range map[string]*policy.Block{"defaults": p.Defaults, "overrides": p.Overrides} {
		if b == nil {
			continue
		}
		block := policy.BareForm(k, b.Rules)
		if b.Strategy != "" {
			block["strategy"] = b.Strategy
		}
		if b.When != "" && k.ConditionField != "" {
			block[k.ConditionField] = b.When
		}
		spec[name] = block
	}
	if len(p.Unset) > 0 {
		unset := make([]interface{}, len(p.Unset))
		for i, id := range p.Unset {
			unset[i] = id
		}
		spec["unset"] = unset
	}
	u := &unstructured.Unstructured{Object: map[string]interface{}{"spec": runtime.DeepCopyJSONValue(spec)}}
	u.SetGroupVersionKind(k.GVK)
	u.SetNamespace(p.Ref.Namespace)
	u.SetName(p.Ref.Name)
	if !p.Created.IsZero() {
		u.SetCreationTimestamp(metav1.NewTime(p.Created))
	}
	return u, nil
}

// YAML renders objects as one multi-document YAML stream (`kubectl apply -f` reads it).
func YAML(objs []*unstructured.Unstructured) ([]byte, error) {
	var buf bytes.Buffer
	for _, o := range objs {
		b, err := yaml.Marshal(o.Object)
		if err != nil {
			return nil, fmt.Errorf("rendering %s %s/%s: %w", o.GetKind(), o.GetNamespace(), o.GetName(), err)
		}
		buf.WriteString("---\n")
		buf.Write(b)
	}
	return buf.Bytes(), nil
}

// typed converts a Gateway API object to unstructured without status or an empty creationTimestamp.
func typed(obj runtime.Object, kind string) (*unstructured.Unstructured, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, fmt.Errorf("converting a %s: %w", kind, err)
	}
	u := &unstructured.Unstructured{Object: m}
	delete(u.Object, "status")
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	u.SetAPIVersion(topology.Group + "/v1")
	u.SetKind(kind)
	return u, nil
}
