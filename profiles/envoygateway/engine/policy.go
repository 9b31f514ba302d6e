package engine

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Group and Version of Envoy Gateway's policy kinds.
const (
	Group   = "gateway.envoyproxy.io"
	Version = "v1alpha1"
)

// The four policy kinds of the profile.
const (
	BackendTrafficPolicy = "BackendTrafficPolicy"
	SecurityPolicy       = "SecurityPolicy"
	ClientTrafficPolicy  = "ClientTrafficPolicy"
	EnvoyExtensionPolicy = "EnvoyExtensionPolicy"
)

// Kinds lists the kinds the profile knows, with their resource names.
var Kinds = map[string]string{
	BackendTrafficPolicy: "backendtrafficpolicies",
	SecurityPolicy:       "securitypolicies",
	ClientTrafficPolicy:  "clienttrafficpolicies",
	EnvoyExtensionPolicy: "envoyextensionpolicies",
}

// MergeType is spec.mergeType (api/v1alpha1 MergeType).
type MergeType string

const (
	StrategicMerge MergeType = "StrategicMerge"
	JSONMerge      MergeType = "JSONMerge"
	// Replace exists in the enum for EnvoyProxy patches; CEL refuses it on policies.
	Replace MergeType = "Replace"
)

// Ref names a policy.
type Ref struct{ Namespace, Name string }

func (r Ref) String() string { return r.Namespace + "/" + r.Name }

// TargetRef is one LocalPolicyTargetReferenceWithSectionName.
type TargetRef struct {
	Group, Kind, Name, Section string
}

// Selector is one spec.targetSelectors entry (api/v1alpha1/policy_helpers.go TargetSelector).
type Selector struct {
	Group, Kind string
	// From is Same (default), All or Selector (TargetSelectorNamespaces).
	From              string
	NamespaceSelector *metav1.LabelSelector
	Labels            metav1.LabelSelector
}

// Policy is one of the four kinds as far as precedence goes.
type Policy struct {
	Kind    string
	Ref     Ref
	Created time.Time
	// Targets are spec.targetRef when set, else spec.targetRefs (policy_helpers.go GetTargetRefs:
	// the deprecated single form wins).
	Targets   []TargetRef
	Selectors []Selector
	MergeType MergeType
	// Fields is the spec without its targeting and mergeType: what Envoy Gateway applies and merges.
	Fields map[string]interface{}
	// Raw is the spec as written, for the stateless checks' field paths.
	Raw map[string]interface{}
	// sources is topLevel(p), computed by Read.
	sources map[string]string
	// Invalid says the policy stands for one Envoy Gateway marks Invalid (AsInvalid).
	Invalid bool
	// read is the policy as read when this is what AsInvalid made of it.
	read *Policy
}

// AsRead is the policy as Read gave it: the valid form of what AsInvalid made of a policy.
func (p *Policy) AsRead() *Policy {
	if p.read != nil {
		return p.read
	}
	return p
}

var specPath = field.NewPath("spec")

// targeting are the spec fields that say where a policy applies rather than what it applies.
var targeting = map[string]bool{"targetRef": true, "targetRefs": true, "targetSelectors": true, "mergeType": true}

// Read reads a policy of one of the four kinds from an unstructured object. Errors name the
// field paths of shapes it cannot read (the CRD schema rejects those first on a real cluster).
func Read(u *unstructured.Unstructured) (*Policy, field.ErrorList) {
	gvk := u.GroupVersionKind()
	if gvk.Group != Group {
		return nil, field.ErrorList{field.Invalid(field.NewPath("apiVersion"), u.GetAPIVersion(), "not an envoy gateway policy")}
	}
	return ReadAs(u, gvk.Kind, Ref{u.GetNamespace(), u.GetName()})
}

// ReadAs is Read of an object whose group is Group, of kind and named ref (as a store keeps them:
// read once by the caller, not again from the object's maps).
func ReadAs(u *unstructured.Unstructured, kind string, ref Ref) (*Policy, field.ErrorList) {
	if _, ok := Kinds[kind]; !ok {
		return nil, field.ErrorList{field.NotSupported(field.NewPath("kind"), kind, sortedKinds())}
	}
	spec, _ := u.Object["spec"].(map[string]interface{})
	p := &Policy{Kind: kind, Ref: ref, Created: u.GetCreationTimestamp().Time, Fields: make(map[string]interface{}, len(spec))}
	p.Raw = spec
	var errs field.ErrorList
	for k, v := range spec {
		if !targeting[k] {
			p.Fields[k] = v
		}
	}
	if mt, ok := spec["mergeType"]; ok && mt != nil {
		s, ok := mt.(string)
		if !ok {
			errs = append(errs, field.Invalid(specPath.Child("mergeType"), mt, "must be a string"))
		}
		p.MergeType = MergeType(s)
	}
	if tr, ok := spec["targetRef"].(map[string]interface{}); ok {
		p.Targets = []TargetRef{readTarget(tr)}
	} else if trs, ok := spec["targetRefs"]; ok && trs != nil {
		list, ok := trs.([]interface{})
		if !ok {
			errs = append(errs, field.Invalid(specPath.Child("targetRefs"), trs, "must be a list"))
		}
		for i, t := range list {
			m, ok := t.(map[string]interface{})
			if !ok {
				errs = append(errs, field.Invalid(specPath.Child("targetRefs").Index(i), t, "must be an object"))
				continue
			}
			p.Targets = append(p.Targets, readTarget(m))
		}
	}
	if sels, ok := spec["targetSelectors"]; ok && sels != nil {
		list, ok := sels.([]interface{})
		if !ok {
			errs = append(errs, field.Invalid(specPath.Child("targetSelectors"), sels, "must be a list"))
		}
		for i, s := range list {
			sel, err := readSelector(s)
			if err != nil {
				errs = append(errs, field.Invalid(specPath.Child("targetSelectors").Index(i), "", err.Error()))
				continue
			}
			p.Selectors = append(p.Selectors, sel)
		}
	}
	p.sources = topLevel(p)
	return p, errs
}

func readTarget(m map[string]interface{}) TargetRef {
	t := TargetRef{Group: str(m, "group"), Kind: str(m, "kind"), Name: str(m, "name"), Section: str(m, "sectionName")}
	return t
}

func readSelector(v interface{}) (Selector, error) {
	m, ok := v.(map[string]interface{})
	if !ok {
		return Selector{}, fmt.Errorf("must be an object")
	}
	s := Selector{Group: str(m, "group"), Kind: str(m, "kind"), From: "Same"}
	if s.Group == "" {
		s.Group = "gateway.networking.k8s.io"
	}
	var ls metav1.LabelSelector
	sub := map[string]interface{}{}
	if ml, ok := m["matchLabels"]; ok {
		sub["matchLabels"] = ml
	}
	if me, ok := m["matchExpressions"]; ok {
		sub["matchExpressions"] = me
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(sub, &ls); err != nil {
		return Selector{}, fmt.Errorf("reading labels: %w", err)
	}
	s.Labels = ls
	if ns, ok := m["namespaces"].(map[string]interface{}); ok {
		if from := str(ns, "from"); from != "" {
			s.From = from
		}
		if sel, ok := ns["selector"].(map[string]interface{}); ok {
			var nsl metav1.LabelSelector
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(sel, &nsl); err != nil {
				return Selector{}, fmt.Errorf("reading namespaces.selector: %w", err)
			}
			s.NamespaceSelector = &nsl
		}
	}
	return s, nil
}

func str(m map[string]interface{}, k string) string {
	s, _ := m[k].(string)
	return s
}

func sortedKinds() []string {
	return []string{BackendTrafficPolicy, ClientTrafficPolicy, EnvoyExtensionPolicy, SecurityPolicy}
}

// older reports whether a is processed before b: Envoy Gateway sorts policies by creationTimestamp,
// then namespace, then name (internal/gatewayapi/resource/resource.go, Resources.Sort), and the
// first policy to claim a scope holds it.
//
// A policy without a creationTimestamp (an object not stored yet, as a dry run or a test may show
// it) counts as the newest: it will be stamped later than every stored policy.
func older(a, b *Policy) bool {
	if az, bz := a.Created.IsZero(), b.Created.IsZero(); az != bz {
		return bz
	}
	if !a.Created.Equal(b.Created) {
		return a.Created.Before(b.Created)
	}
	if a.Ref.Namespace != b.Ref.Namespace {
		return a.Ref.Namespace < b.Ref.Namespace
	}
	return a.Ref.Name < b.Ref.Name
}
