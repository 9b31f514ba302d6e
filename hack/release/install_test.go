package main

import "testing"

func TestDropDefaultSettings(t *testing.T) {
	const ns = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: precedent-system\n"
	const crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  names:\n    kind: PrecedentConfig\n"
	for _, tc := range []struct {
		name, in, want string
	}{
		{"empty kinds dropped", ns + "---\napiVersion: policy.precedent.dev/v1alpha1\nkind: PrecedentConfig\nmetadata:\n  name: cluster\nspec:\n  kinds: []\n---\n" + crd,
			ns + "---\n" + crd},
		{"no spec dropped", ns + "---\napiVersion: policy.precedent.dev/v1alpha1\nkind: PrecedentConfig\nmetadata:\n  name: cluster\n", ns},
		{"a setting kept", ns + "---\nkind: PrecedentConfig\nspec:\n  unsetEnabled: false\n",
			ns + "---\nkind: PrecedentConfig\nspec:\n  unsetEnabled: false\n"},
		{"a component's kinds kept", "kind: PrecedentConfig\nspec:\n  kinds:\n  - profile: kuadrant\n",
			"kind: PrecedentConfig\nspec:\n  kinds:\n  - profile: kuadrant\n"},
		{"the CRD of PrecedentConfig kept", crd, crd},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := dropDefaultSettings([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}
