package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/precedent-dev/precedent/internal/topology"
)

// TestWithObjectMatchesBuild: the labels of a ListenerSet or L4 route, given after the build
// (WithObject), select what a build given them selects; removing them unselects it.
func TestWithObjectMatchesBuild(t *testing.T) {
	team := topology.Key{Namespace: "shop", Name: "team"}
	front := map[string]string{"tier": "front"}
	selector := pol(t, SecurityPolicy, "shop", "by-label", 1, obj{
		"targetSelectors": list{obj{"group": topology.Group, "kind": "ListenerSet", "matchLabels": obj{"tier": "front"}}},
		"cors":            obj{"allowOrigins": list{"https://a.example.com"}},
	})
	for _, tc := range []struct {
		name          string
		before, after []Object
		labels        map[string]string
		deleted       bool
	}{
		{"labels added select the ListenerSet", nil, []Object{{Kind: "ListenerSet", Key: team, Labels: front}}, front, false},
		{"labels changed unselect it", []Object{{Kind: "ListenerSet", Key: team, Labels: front}}, []Object{{Kind: "ListenerSet", Key: team, Labels: map[string]string{"tier": "back"}}}, map[string]string{"tier": "back"}, false},
		{"object gone unselects it", []Object{{Kind: "ListenerSet", Key: team, Labels: front}}, nil, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := shop()
			in.Policies = []*Policy{selector}
			in.Objects = tc.before
			stepped := NewSnapshot(in).WithObject("ListenerSet", team, tc.labels, tc.deleted)
			in.Objects = tc.after
			built := NewSnapshot(in)
			if diff := cmp.Diff(built.Items(SecurityPolicy), stepped.Items(SecurityPolicy)); diff != "" {
				t.Errorf("items (-built +stepped):\n%s", diff)
			}
			if diff := cmp.Diff(built.Resolve(selector), stepped.Resolve(selector)); diff != "" {
				t.Errorf("resolution (-built +stepped):\n%s", diff)
			}
		})
	}
}
