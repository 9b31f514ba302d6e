package vap

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsinstall "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/install"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/internal/checks"
	"github.com/precedent-dev/precedent/internal/policy"
)

// The markers around the generated x-kubernetes-validations of a CRD's spec; the rest of the
// CRD is hand-written.
const (
	crdBegin = "            # BEGIN generated from package checks by `make generate`: do not edit\n"
	crdEnd   = "            # END generated\n"
	// crdIndent is the indentation of the spec schema's keys.
	crdIndent = "            "
)

// CRDRule is one x-kubernetes-validations rule and the check it comes from.
type CRDRule struct {
	ID   string
	Rule apiextensionsv1.ValidationRule
}

// Left is a check CRDRules leaves out, with why.
type Left struct {
	ID, Why string
}

// errorPrefix splits a rule's Message as field.ErrorList renders it: path, type, detail.
var errorPrefix = regexp.MustCompile(`^(spec[^:]*): (Required value|Forbidden|Duplicate value|Invalid value|Unsupported value): (.*)$`)

// crdReasons maps a field error type to the reason of an x-kubernetes-validations rule whose error
// the API server renders as the check's ("spec.rules: Forbidden: <detail>").
var crdReasons = map[string]apiextensionsv1.FieldValueErrorReason{
	"Required value": apiextensionsv1.FieldValueRequired,
	"Forbidden":      apiextensionsv1.FieldValueForbidden,
}

// objectSpec is spec as a check's CEL reads it.
var objectSpec = regexp.MustCompile(`\bobject\.spec\b`)

// selfField finds the spec fields a rewritten rule reads.
var selfField = regexp.MustCompile(`\bself\.([A-Za-z0-9_]+)`)

// CRDRules derives the x-kubernetes-validations of kind k's spec schema from the checks of its
// profile that have CEL: `object.spec` becomes `self`, the message is the check's detail, and
// fieldPath and reason say where and what, so the API server renders exactly the check's error.
// fields are the properties of the spec schema. The API server evaluates a CRD's rules before any
// admission webhook or policy, so a rule would replace their error with its own: left out, and
// listed, are the checks whose error a CRD rule cannot reproduce (it names the element or value at
// fault, or its type is not Required or Forbidden), and those that read params (the unset switch),
// read beyond spec, or read a field the schema lacks.
func CRDRules(k policy.Kind, fields map[string]bool) ([]CRDRule, []Left) {
	var out []CRDRule
	var left []Left
	for _, c := range checks.For(k) {
		if c.CEL == nil {
			left = append(left, Left{c.ID, "no CEL"})
			continue
		}
		if c.Params {
			left = append(left, Left{c.ID, "reads params (the PrecedentConfig)"})
			continue
		}
		var rs []CRDRule
		why := ""
		for _, r := range c.CEL(k) {
			rule, w := crdRule(r, fields)
			if w != "" {
				why = w
				break
			}
			rs = append(rs, CRDRule{c.ID, rule})
		}
		if why != "" {
			left = append(left, Left{c.ID, why})
			continue
		}
		out = append(out, rs...)
	}
	return out, left
}

func crdRule(r checks.Rule, fields map[string]bool) (apiextensionsv1.ValidationRule, string) {
	if r.MessageExpression != "" {
		// The error names the element or value at fault; a CRD rule's fieldPath cannot.
		return apiextensionsv1.ValidationRule{}, "its error names the element or value at fault, which a CRD rule cannot"
	}
	expr := strings.ReplaceAll(r.Expression, "object.spec.", "self.")
	expr = objectSpec.ReplaceAllString(expr, "self")
	if strings.Contains(expr, "object.") || strings.Contains(expr, "params.") || strings.Contains(expr, "oldObject") {
		return apiextensionsv1.ValidationRule{}, "reads beyond spec"
	}
	for _, m := range selfField.FindAllStringSubmatch(expr, -1) {
		if !fields[m[1]] {
			return apiextensionsv1.ValidationRule{}, "reads spec." + m[1] + ", which the schema lacks"
		}
	}
	m := errorPrefix.FindStringSubmatch(r.Message)
	if m == nil {
		return apiextensionsv1.ValidationRule{}, fmt.Sprintf("message %q is not a field error", r.Message)
	}
	reason, ok := crdReasons[m[2]]
	if !ok {
		// Invalid renders the schema type as the value and Duplicate drops the detail.
		return apiextensionsv1.ValidationRule{}, "the API server would render its " + m[2] + " error differently"
	}
	if strings.Contains(m[1], "[") {
		return apiextensionsv1.ValidationRule{}, "its error names the element at fault, which a CRD rule cannot"
	}
	return apiextensionsv1.ValidationRule{Rule: expr, Message: m[3], Reason: &reason, FieldPath: strings.TrimPrefix(m[1], "spec")}, ""
}

// RewriteCRD replaces the generated block of a shipped CRD (one version, kind k) with the rules
// CRDRules derives, and returns the CRD and the checks left out.
func RewriteCRD(src []byte, k policy.Kind) ([]byte, []Left, error) {
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(src, &crd); err != nil {
		return nil, nil, err
	}
	if len(crd.Spec.Versions) != 1 || crd.Spec.Versions[0].Schema == nil || crd.Spec.Versions[0].Schema.OpenAPIV3Schema == nil {
		return nil, nil, fmt.Errorf("%s: want one version with a schema", crd.Name)
	}
	specSchema, ok := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	if !ok {
		return nil, nil, fmt.Errorf("%s: no spec in the schema", crd.Name)
	}
	fields := map[string]bool{}
	for name := range specSchema.Properties {
		fields[name] = true
	}
	rules, left := CRDRules(k, fields)
	rules, rejected, err := admissible(&crd, rules)
	if err != nil {
		return nil, nil, err
	}
	left = append(left, rejected...)
	b := bytes.Index(src, []byte(crdBegin))
	e := bytes.Index(src, []byte(crdEnd))
	if b < 0 || e < b {
		return nil, nil, fmt.Errorf("%s: no generated block (%q … %q)", crd.Name, strings.TrimSpace(crdBegin), strings.TrimSpace(crdEnd))
	}
	var block strings.Builder
	block.WriteString(crdBegin)
	if len(rules) > 0 {
		var vs []apiextensionsv1.ValidationRule
		for _, r := range rules {
			vs = append(vs, r.Rule)
		}
		y, err := yaml.Marshal(map[string]interface{}{"x-kubernetes-validations": vs})
		if err != nil {
			return nil, nil, err
		}
		for _, line := range strings.SplitAfter(string(y), "\n") {
			if line != "" {
				block.WriteString(crdIndent + line)
			}
		}
	}
	block.WriteString(crdEnd)
	out := append(append(append([]byte(nil), src[:b]...), block.String()...), src[e+len(crdEnd):]...)
	return out, left, nil
}

// admissible drops the rules the API server would reject in crd's spec schema (compilation
// against the schema, estimated cost over the limits), as its own CRD validation finds them, one
// at a time, and lists them.
func admissible(crd *apiextensionsv1.CustomResourceDefinition, rules []CRDRule) ([]CRDRule, []Left, error) {
	scheme := runtime.NewScheme()
	apiextensionsinstall.Install(scheme)
	var left []Left
	for {
		c := crd.DeepCopy()
		spec := c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
		spec.XValidations = nil
		for _, r := range rules {
			spec.XValidations = append(spec.XValidations, r.Rule)
		}
		c.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = spec
		var internal apiextensions.CustomResourceDefinition
		if err := scheme.Convert(c, &internal, nil); err != nil {
			return nil, nil, err
		}
		bad := -1
		var detail string
		for _, e := range validation.ValidateCustomResourceDefinition(context.Background(), &internal) {
			var i int
			if _, err := fmt.Sscanf(strings.TrimPrefix(e.Field, "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations["), "%d]", &i); err == nil && strings.HasPrefix(e.Field, "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[") {
				bad, detail = i, e.Type.String()+": "+firstLine(e.Detail)
				break
			}
			if strings.HasPrefix(e.Field, "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations") && len(rules) > 0 {
				// A limit on the rules together (total cost): drop the last.
				bad, detail = len(rules)-1, e.Type.String()+": "+firstLine(e.Detail)
				break
			}
		}
		if bad < 0 {
			return rules, left, nil
		}
		id := rules[bad].ID
		left = append(left, Left{id, "the API server rejects it in the CRD: " + detail})
		var keep []CRDRule
		for _, r := range rules {
			if r.ID != id {
				keep = append(keep, r)
			}
		}
		rules = keep
	}
}

func firstLine(s string) string {
	if i := strings.Index(s, "\n"); i >= 0 {
		return s[:i]
	}
	return s
}
