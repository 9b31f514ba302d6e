package reconcile

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/internal/topology"
)

// status reads a YAML status the way the cache holds it (JSON-decoded unstructured).
func status(t *testing.T, doc string) map[string]interface{} {
	t.Helper()
	out := map[string]interface{}{}
	if err := yaml.Unmarshal([]byte(doc), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// Entries of a flow list end in ", ", so they concatenate; the list closes with "]".

// foreignAncestor is another controller's entry for Gateway gw-i.
func foreignAncestor(i int) string {
	return fmt.Sprintf(`{ancestorRef: {group: gateway.networking.k8s.io, kind: Gateway, namespace: ns, name: gw-%d},
  controllerName: example.com/other,
  conditions: [{type: Accepted, status: "False", reason: Theirs, message: kept as it is, lastTransitionTime: "2020-01-01T00:00:00Z"}]}, `, i)
}

func ancestorYAML(gw string, acc string) string {
	return `{ancestorRef: {group: gateway.networking.k8s.io, kind: Gateway, namespace: ns, name: ` + gw + `},
  controllerName: policy.precedent.dev/precedent,
  conditions: [` + acc + `]}, `
}

const (
	acceptedYAML    = `{type: Accepted, status: "True", reason: Accepted, message: Policy has been acceptedYAML, observedGeneration: 1, lastTransitionTime: "2024-01-01T00:00:00Z"}`
	enforcedYAML    = `{type: Enforced, status: "True", reason: Enforced, message: Policy has been successfully enforcedYAML, observedGeneration: 1, lastTransitionTime: "2024-01-01T00:00:00Z"}`
	acceptedNowYAML = `{type: Accepted, status: "True", reason: Accepted, message: Policy has been acceptedYAML, observedGeneration: 1, lastTransitionTime: "2025-06-01T12:00:00Z"}`
	enforcedNowYAML = `{type: Enforced, status: "True", reason: Enforced, message: Policy has been successfully enforcedYAML, observedGeneration: 1, lastTransitionTime: "2025-06-01T12:00:00Z"}`
	foreignCond     = `{type: example.com/Programmed, status: "True", reason: Theirs, message: not ours, lastTransitionTime: "2020-01-01T00:00:00Z"}`
	notCondition    = `{type: Odd, note: not even a condition}`
)

func TestMergeStatus(t *testing.T) {
	now := metav1.NewTime(time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC))
	want := Status{
		Conditions: []metav1.Condition{
			{Type: TypeAccepted, Status: metav1.ConditionTrue, Reason: ReasonAccepted, Message: "Policy has been acceptedYAML", ObservedGeneration: 1},
			{Type: TypeEnforced, Status: metav1.ConditionTrue, Reason: ReasonEnforced, Message: "Policy has been successfully enforcedYAML", ObservedGeneration: 1},
		},
		Gateways: []topology.Key{{Namespace: "ns", Name: "gw-a"}, {Namespace: "ns", Name: "gw-b"}},
	}
	many := Status{Conditions: want.Conditions}
	for i := 0; i < 20; i++ {
		many.Gateways = append(many.Gateways, topology.Key{Namespace: "ns", Name: fmt.Sprintf("ours-%02d", i)})
	}
	fifteen, seventeen := "", ""
	for i := 0; i < 17; i++ {
		if i < 15 {
			fifteen += foreignAncestor(i)
		}
		seventeen += foreignAncestor(i)
	}
	tests := []struct {
		name    string
		cur     string
		st      Status
		skip    map[string]bool
		want    string
		changed bool
	}{
		{"an empty status gets our conditions and ancestors", `{}`, want, nil,
			`{conditions: [` + acceptedNowYAML + `, ` + enforcedNowYAML + `], ancestors: [` + ancestorYAML("gw-a", acceptedNowYAML) + ancestorYAML("gw-b", acceptedNowYAML) + `]}`, true},
		{"a status that says it all is not written", `{conditions: [` + acceptedYAML + `, ` + enforcedYAML + `], ancestors: [` + ancestorYAML("gw-a", acceptedYAML) + ancestorYAML("gw-b", acceptedYAML) + `]}`, want, nil,
			`{conditions: [` + acceptedYAML + `, ` + enforcedYAML + `], ancestors: [` + ancestorYAML("gw-a", acceptedYAML) + ancestorYAML("gw-b", acceptedYAML) + `]}`, false},
		{"other controllers' conditions stay in place untouched, ours replaced in place",
			`{conditions: [` + foreignCond + `, {type: Enforced, status: "False", reason: Overridden, message: old, observedGeneration: 1, lastTransitionTime: "2024-01-01T00:00:00Z"}, ` + notCondition + `, ` + acceptedYAML + `], observedGeneration: 7}`,
			Status{Conditions: want.Conditions}, nil,
			`{conditions: [` + foreignCond + `, ` + enforcedNowYAML + `, ` + notCondition + `, ` + acceptedYAML + `], observedGeneration: 7}`, true},
		{"a condition whose status stays keeps its transition time",
			`{conditions: [` + acceptedYAML + `, {type: Enforced, status: "True", reason: PartiallyEnforced, message: old, observedGeneration: 1, lastTransitionTime: "2024-01-01T00:00:00Z"}]}`,
			Status{Conditions: want.Conditions}, nil,
			`{conditions: [` + acceptedYAML + `, ` + enforcedYAML + `]}`, true},
		{"other controllers' ancestors stay in place; ours replaced, removed and added",
			`{conditions: [` + acceptedYAML + `, ` + enforcedYAML + `], ancestors: [` + ancestorYAML("gw-old", acceptedYAML) + foreignAncestor(1) + ancestorYAML("gw-b", `{type: Accepted, status: "False", reason: Invalid, message: old, observedGeneration: 1, lastTransitionTime: "2024-01-01T00:00:00Z"}`) + foreignAncestor(2) + `]}`,
			want, nil,
			`{conditions: [` + acceptedYAML + `, ` + enforcedYAML + `], ancestors: [` + foreignAncestor(1) + ancestorYAML("gw-b", acceptedYAML) + foreignAncestor(2) + ancestorYAML("gw-a", acceptedYAML) + `]}`, true},
		{"ours take the room other controllers leave of 16", `{conditions: [` + acceptedYAML + `, ` + enforcedYAML + `], ancestors: [` + fifteen + `]}`, many, nil,
			`{conditions: [` + acceptedYAML + `, ` + enforcedYAML + `], ancestors: [` + fifteen + ancestorYAML("ours-00", acceptedYAML) + `]}`, true},
		{"others are never removed for room, even past 16", `{conditions: [` + acceptedYAML + `, ` + enforcedYAML + `], ancestors: [` + seventeen + ancestorYAML("ours-00", acceptedYAML) + `]}`, many, nil,
			`{conditions: [` + acceptedYAML + `, ` + enforcedYAML + `], ancestors: [` + seventeen + `]}`, true},
		{"a pruned field is neither written nor compared", `{conditions: [` + acceptedYAML + `, ` + enforcedYAML + `]}`, want, map[string]bool{fieldAncestors: true},
			`{conditions: [` + acceptedYAML + `, ` + enforcedYAML + `]}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cur := status(t, tt.cur)
			before := status(t, tt.cur)
			got, changed, err := mergeStatus(cur, tt.st, tt.skip, now)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(status(t, tt.want), roundTrip(t, got)); diff != "" {
				t.Errorf("status (-want +got):\n%s", diff)
			}
			if changed != tt.changed {
				t.Errorf("changed = %t, want %t", changed, tt.changed)
			}
			if diff := cmp.Diff(before, cur); diff != "" {
				t.Errorf("the current status was modified (-before +after):\n%s", diff)
			}
		})
	}
}

// roundTrip gives m as the API server returns it (JSON), so typed and decoded values compare.
func roundTrip(t *testing.T, m map[string]interface{}) map[string]interface{} {
	t.Helper()
	b, err := yaml.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return status(t, string(b))
}

// TestPruningLearnsWhatTheSchemaDrops: the answer to a write lacks ancestors (the kind's schema
// has none): ancestors are remembered as pruned, conditions are not.
func TestPruningLearnsWhatTheSchemaDrops(t *testing.T) {
	st := Status{
		Conditions: []metav1.Condition{{Type: TypeAccepted, Status: metav1.ConditionTrue, Reason: ReasonAccepted, Message: "Policy has been acceptedYAML", ObservedGeneration: 1}},
		Gateways:   []topology.Key{{Namespace: "ns", Name: "gw-a"}},
	}
	var p pruning
	lost := p.learn(status(t, `{conditions: [`+acceptedYAML+`]}`), st, nil)
	if diff := cmp.Diff([]string{fieldAncestors}, lost); diff != "" {
		t.Errorf("learned (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]bool{fieldAncestors: true}, p.skip()); diff != "" {
		t.Errorf("skip (-want +got):\n%s", diff)
	}
	var kept pruning
	if lost := kept.learn(status(t, `{conditions: [`+acceptedYAML+`], ancestors: [`+ancestorYAML("gw-a", acceptedYAML)+`]}`), st, nil); lost != nil {
		t.Errorf("learned %v from a status that kept everything", lost)
	}
}
