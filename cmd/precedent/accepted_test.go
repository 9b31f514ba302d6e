package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/precedent-dev/precedent/internal/manifest"
	"github.com/precedent-dev/precedent/internal/settings"
)

// missingTarget is an AuthPolicy of the F1 sample's namespace on a route that does not exist.
const missingTarget = `
apiVersion: policy.precedent.dev/v1alpha1
kind: AuthPolicy
metadata: {name: lost, namespace: f1}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: gone}
  rules: {authorization: {x: {opa: {rego: allow = true}}}}`

// TestLeaveOutUnaccepted runs over the F1 sample: a Gateway policy's defaults, and a route policy
// that unsets one of them.
func TestLeaveOutUnaccepted(t *testing.T) {
	unsetOff := settings.Defaults()
	unsetOff.UnsetEnabled = false
	cases := []struct {
		name     string
		settings settings.Settings
		more     string // documents added to the sample
		ns       string // the namespace whose notes are kept (effective -n)
		kept     []string
		notes    []string
	}{
		{name: "accepted policies are all kept", settings: settings.Defaults(), kept: []string{"f1/gw-policy", "f1/route-policy"}},
		{
			name: "unset switched off: the policy using it is left out", settings: unsetOff,
			kept: []string{"f1/gw-policy"},
			notes: []string{"PRC-N300 AuthPolicy f1/route-policy: left out, not accepted: Invalid: Policy is invalid: spec.unset: Forbidden: " +
				"unset is switched off in this cluster by the cluster administrator (PrecedentConfig cluster: spec.unsetEnabled): remove spec.unset"},
		},
		{
			name: "unset switched off, the notes of another namespace: none", settings: unsetOff, ns: "c1",
			kept: []string{"f1/gw-policy"},
		},
		{
			name: "a policy whose target does not exist is left out", settings: settings.Defaults(), more: missingTarget,
			kept:  []string{"f1/gw-policy", "f1/route-policy"},
			notes: []string{"PRC-N300 AuthPolicy f1/lost: left out, not accepted: TargetNotFound: Policy target HTTPRoute f1/gone was not found"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := manifest.Read("../../config/samples/rfc/f1")
			if err != nil {
				t.Fatal(err)
			}
			more, err := manifest.Decode("more.yaml", []byte(tc.more))
			if err != nil {
				t.Fatal(err)
			}
			var us []*unstructured.Unstructured
			for _, m := range append(objs, more...) {
				us = append(us, m.Unstructured)
			}
			o, err := newInput(tc.settings, us, nil)
			if err != nil {
				t.Fatal(err)
			}
			o.leaveOutUnaccepted("")
			o.keepUnacceptedIn(tc.ns)
			k, _ := o.registry.Resolve("AuthPolicy")
			var kept, notes []string
			for _, p := range o.inv.Views(k) {
				kept = append(kept, p.Ref.String())
			}
			for _, f := range o.unaccepted {
				notes = append(notes, f.Text())
			}
			if d := cmp.Diff(tc.kept, kept); d != "" {
				t.Errorf("kept (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.notes, notes); d != "" {
				t.Errorf("notes (-want +got):\n%s", d)
			}
		})
	}
}
