package deploy

import (
	"context"
	"errors"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// keepCABundle is a MutatingAdmissionPolicy (GA in Kubernetes 1.36) and its binding: on an update
// of Precedent's webhook configurations, a webhook that comes without a caBundle keeps the one
// the stored configuration has for it. A replace of the rendered manifests (`kubectl replace`, a
// GitOps tool) then never leaves the API server a webhook without a CA to trust, so no write fails
// meanwhile. Admission webhooks are never called on webhook configurations, but API-based admission
// policies skip only their own kinds. An admin who means to change the CA writes a new caBundle,
// which the policy leaves alone; failurePolicy Ignore: a broken policy blocks no update. Not
// shipped: the install supports Kubernetes 1.30 and later, and this kind needs 1.36; (d2) shows
// what it would do.
const keepCABundle = `apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: precedent-keep-cabundle
spec:
  failurePolicy: Ignore
  reinvocationPolicy: Never
  matchConstraints:
    resourceRules:
    - apiGroups: [admissionregistration.k8s.io]
      apiVersions: [v1]
      operations: [UPDATE]
      resources: [validatingwebhookconfigurations, mutatingwebhookconfigurations]
      resourceNames: [precedent]
  matchConditions:
  - name: a-webhook-loses-its-cabundle
    expression: >-
      object.webhooks.exists(w, !has(w.clientConfig.caBundle) &&
      oldObject.webhooks.exists(o, o.name == w.name && has(o.clientConfig.caBundle)))
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >-
        Object{webhooks: object.webhooks.filter(w, !has(w.clientConfig.caBundle) &&
        oldObject.webhooks.exists(o, o.name == w.name && has(o.clientConfig.caBundle))).map(w,
        Object.webhooks{name: w.name, clientConfig: Object.webhooks.clientConfig{
        caBundle: oldObject.webhooks.filter(o, o.name == w.name)[0].clientConfig.caBundle}})}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: precedent-keep-cabundle
spec:
  policyName: precedent-keep-cabundle
`

// KeepCABundle installs keepCABundle and returns what removes it.
func KeepCABundle(ctx context.Context, c client.Client) (func() error, error) {
	var objs []*unstructured.Unstructured
	for _, doc := range strings.Split(keepCABundle, "\n---\n") {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
			return nil, fmt.Errorf("decoding the caBundle-keeping policy: %w", err)
		}
		objs = append(objs, u)
	}
	remove := func() error {
		var errs []error
		for _, u := range objs {
			if err := c.Delete(ctx, u); err != nil && !apierrors.IsNotFound(err) {
				errs = append(errs, err)
			}
		}
		return errors.Join(errs...)
	}
	for _, u := range objs {
		if err := c.Create(ctx, u.DeepCopy()); err != nil {
			return remove, fmt.Errorf("creating %s %s: %w", u.GetKind(), u.GetName(), err)
		}
	}
	return remove, nil
}
