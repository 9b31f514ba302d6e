package webhook

import (
	"fmt"
	"slices"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/profile"
)

// ComponentWebhooks are the validating webhook entries a kustomize component (config/kuadrant,
// config/envoy-gateway) adds to Precedent's configuration for kinds, the kinds it configures with
// profile p: <name>.policies.precedent.dev for the creates and updates of the resources p asks for
// (failing closed, like policies.precedent.dev), <name>-deletes.policies.precedent.dev for
// those whose deletes p projects (failing open, like deletes.precedent.dev) and
// <name>-warnings.policies.precedent.dev for the writes p only warns about (failing open, like
// warnings.precedent.dev). Each entry has one
// rule per API group, for every version the group's CRDs serve: the component cannot know which
// of them a cluster installs, and matchPolicy Equivalent sends each write in the version asked.
// A profile that asks a mutating webhook for kinds is an error: a component patches only the
// validating configuration.
func ComponentWebhooks(name string, p interface {
	profile.Kinds
	profile.Admission
}, kinds []policy.Kind, cc ClientConfig) ([]admissionregistrationv1.ValidatingWebhook, error) {
	w := p.Webhooks(kinds)
	if len(w.Mutating) > 0 {
		return nil, fmt.Errorf("component %s: profile %s asks the mutating webhook %s, which a component does not patch", name, p.Name(), w.Mutating[0].Name)
	}
	if len(w.Validate) == 0 {
		return nil, fmt.Errorf("component %s: profile %s asks no webhook rule for its kinds", name, p.Name())
	}
	cu := []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update}
	del := []admissionregistrationv1.OperationType{admissionregistrationv1.Delete}
	var writes, deletes, warnings []profile.Resource
	for _, r := range w.Validate {
		if r.WarnOnly {
			warnings = append(warnings, r)
		} else {
			writes = append(writes, r)
		}
		if r.Deletes {
			deletes = append(deletes, r)
		}
	}
	out := []admissionregistrationv1.ValidatingWebhook{
		validatingWebhook(name+"."+policiesWebhook, cc, groupRules(writes, cu), admissionregistrationv1.Fail),
	}
	if len(deletes) > 0 {
		out = append(out, validatingWebhook(name+"-"+componentDeletesSuffix, cc, groupRules(deletes, del), admissionregistrationv1.Ignore))
	}
	if len(warnings) > 0 {
		out = append(out, validatingWebhook(name+"-"+componentWarningsSuffix, cc, groupRules(warnings, cu), admissionregistrationv1.Ignore))
	}
	return out, nil
}

// componentDeletesSuffix follows a component's name and a dash in the name of its deletes entry.
const componentDeletesSuffix = "deletes." + policiesWebhook

// componentWarningsSuffix follows a component's name and a dash in the name of the entry of the
// writes its profile only warns about (WarnOnly resources, such as kgateway's HTTPRoutes and
// Gateways): it fails open, like the deletes entry.
const componentWarningsSuffix = "warnings." + policiesWebhook

// groupRules puts the resources of each API group, in their order, into one namespaced rule for
// ops, every version.
func groupRules(rs []profile.Resource, ops []admissionregistrationv1.OperationType) []admissionregistrationv1.RuleWithOperations {
	scope := admissionregistrationv1.NamespacedScope
	var out []admissionregistrationv1.RuleWithOperations
	index := map[string]int{}
	for _, r := range rs {
		i, ok := index[r.Group]
		if !ok {
			i = len(out)
			index[r.Group] = i
			out = append(out, admissionregistrationv1.RuleWithOperations{Operations: ops, Rule: admissionregistrationv1.Rule{
				APIGroups: []string{r.Group}, APIVersions: []string{"*"}, Scope: &scope,
			}})
		}
		if !slices.Contains(out[i].Resources, r.Resource) {
			out[i].Resources = append(out[i].Resources, r.Resource)
		}
	}
	return out
}
