package kuma_test

import (
	"context"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/precedent-dev/precedent/test/harness"
)

// TestKumaServiceLabels: a MeshTimeout to item that names MeshServices only by labels, reviewed by the
// webhook against Kuma's MeshServices in the cluster (the same-shape test CRD of test/crds/kuma), per
// the kind line's Kuma version. On 3.0 the item resolves to the MeshService backend (resolve.TargetRef,
// by labels) and, as a MeshService item, beats a Mesh item of a policy of the same level
// (core/rules/outbound/sort.go), so a Mesh-wide write never takes effect on backend; on 2.14 the tag
// rules read a MeshService by name only and the labels select nothing. Relabelling the MeshService
// takes the 3.0 answer away on the next write.
func TestKumaServiceLabels(t *testing.T) {
	c, rec := h.NewClient()
	ctx := context.Background()
	ns := harness.Namespace(t, c)
	manageKuma(t, c)
	objs := harness.Apply(t, c, ns, webProxy("127.0.0.30"), `
apiVersion: kuma.io/v1alpha1
kind: MeshService
metadata: {name: backend, namespace: "{{ns}}", labels: {kuma.io/mesh: default, team: payments}}
spec:
  ports: [{name: http, port: 8080}]`, `
apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata: {name: a-payments, namespace: "{{ns}}", labels: {kuma.io/mesh: default}}
spec:
  to: [{targetRef: {kind: MeshService, labels: {team: payments}}, default: {connectionTimeout: 3s}}]`)
	everything := harness.ObjectIn(ns, `
apiVersion: kuma.io/v1alpha1
kind: MeshTimeout
metadata: {name: b-everything, namespace: "{{ns}}", labels: {kuma.io/mesh: default}}
spec:
  to: [{targetRef: {kind: Mesh}, default: {connectionTimeout: 1s}}]`)
	shadowed := []string{"PRC-W014 MeshTimeout " + ns + "/b-everything never takes effect on any Dataplane: every field it sets is decided by " + ns + "/a-payments"}
	for _, v := range []struct {
		version string
		want    []string
	}{{"3.0", shadowed}, {"2.14", nil}} {
		h.SetConfig(t, c, map[string]interface{}{"kinds": kumaKindsAt(v.version)})
		harness.DryRunWarnings(t, c, rec, everything, v.want)
	}

	h.SetConfig(t, c, map[string]interface{}{"kinds": kumaKinds})
	svc := objs[1]
	if err := c.Get(ctx, client.ObjectKeyFromObject(svc), svc); err != nil {
		t.Fatal(err)
	}
	svc.SetLabels(map[string]string{"kuma.io/mesh": "default", "team": "search"})
	if err := c.Update(ctx, svc); err != nil {
		t.Fatal(err)
	}
	harness.DryRunWarnings(t, c, rec, everything, nil)
}
