package engine

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

type obj = map[string]interface{}
type list = []interface{}

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func object(kind, ns, name string, annotations, labels map[string]string, spec obj) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: obj{"apiVersion": "v1", "kind": kind, "spec": spec}}
	u.SetNamespace(ns)
	u.SetName(name)
	u.SetAnnotations(annotations)
	u.SetLabels(labels)
	return u
}

func gateway(ns, name string, mode Mode) *unstructured.Unstructured {
	var a map[string]string
	if mode != "" {
		a = map[string]string{Annotation: string(mode)}
	}
	return object("Gateway", ns, name, a, nil, obj{"listeners": list{obj{"name": "http", "port": int64(80)}}})
}

// route is an HTTPRoute; gw attaches it to a Gateway of its namespace (none for a delegated
// child); rules are its rules.
func route(ns, name, gw string, mode Mode, labels map[string]string, rules ...obj) *unstructured.Unstructured {
	var a map[string]string
	if mode != "" {
		a = map[string]string{Annotation: string(mode)}
	}
	spec := obj{"rules": toList(rules)}
	if gw != "" {
		spec["parentRefs"] = list{obj{"name": gw}}
	}
	return object("HTTPRoute", ns, name, a, labels, spec)
}

func toList(rs []obj) list {
	out := list{}
	for _, r := range rs {
		out = append(out, r)
	}
	return out
}

func backend() obj { return obj{"backendRefs": list{obj{"name": "svc", "port": int64(80)}}} }

func delegate(ns, name string) obj {
	return obj{"backendRefs": list{obj{"group": GatewayGroup, "kind": "HTTPRoute", "name": name, "namespace": ns}}}
}

func delegateLabel(ns, label string) obj {
	return obj{"backendRefs": list{obj{"group": DelegationGroup, "kind": DelegationKind, "name": label, "namespace": ns}}}
}

// tp is a TrafficPolicy created age minutes after the epoch with targets and fields.
func tp(ns, name string, age int, targets list, fields obj) *unstructured.Unstructured {
	spec := obj{}
	for k, v := range fields {
		spec[k] = v
	}
	if targets != nil {
		spec["targetRefs"] = targets
	}
	u := object(TrafficPolicy, ns, name, nil, nil, spec)
	u.SetCreationTimestamp(metav1.NewTime(epoch.Add(time.Duration(age) * time.Minute)))
	return u
}

func ref(kind, name, section string) obj {
	o := obj{"group": GatewayGroup, "kind": kind, "name": name}
	if section != "" {
		o["sectionName"] = section
	}
	return o
}

// fields are the values of res with their sources, for comparison.
func fields(res Result) map[string]string {
	out := map[string]string{}
	for f, v := range res.Fields {
		s := ""
		for i, k := range v.Sources {
			if i > 0 {
				s += ","
			}
			s += k.Name
		}
		out[f] = s
	}
	return out
}

// childOf adds a parentRef to the route parent in ns to a child route.
func childOf(u *unstructured.Unstructured, ns, parent string) *unstructured.Unstructured {
	u.Object["spec"].(obj)["parentRefs"] = list{obj{"group": GatewayGroup, "kind": "HTTPRoute", "name": parent, "namespace": ns}}
	return u
}

func withHosts(u *unstructured.Unstructured, hosts ...interface{}) *unstructured.Unstructured {
	u.Object["spec"].(obj)["hostnames"] = list(hosts)
	return u
}

// matching gives a rule one PathPrefix match.
func matching(rule obj, prefix string) obj {
	rule["matches"] = list{obj{"path": obj{"type": "PathPrefix", "value": prefix}}}
	return rule
}

func inheriting(u *unstructured.Unstructured) *unstructured.Unstructured {
	u.SetAnnotations(map[string]string{InheritMatcherAnnotation: "true"})
	return u
}

// weighted sets a policy's kgateway.dev/policy-weight.
func weighted(u *unstructured.Unstructured, w string) *unstructured.Unstructured {
	u.SetAnnotations(map[string]string{WeightAnnotation: w})
	return u
}
