package main

import (
	"strings"

	"github.com/precedent-dev/precedent/internal/diff"
	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/picture"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/profiles"
)

// touchedKey is one Gateway API path of one kind.
type touchedKey struct{ kind, gateway, listener, route, rule string }

// touchedDiagram is the Mermaid picture (as `effective -o mermaid` draws it) of the head's effective
// policies on the Gateway API paths the changes touch, and only those; "" when no change is on such
// a path (the access and mesh profiles' changes are about gateways, backends and proxies). A path
// the change set removes altogether is not in the head, so not in the picture.
func touchedDiagram(head *input, changes []diff.Change) (string, error) {
	touched := map[touchedKey]bool{}
	kinds := map[string]bool{}
	for _, c := range changes {
		if c.Shape == nil || c.Shape == diff.ShapePath {
			touched[touchedKey{c.Kind, c.Gateway, c.Listener, c.Route, c.Rule}] = true
			kinds[c.Kind] = true
		}
	}
	if len(touched) == 0 {
		return "", nil
	}
	var drawn []policy.Kind
	var items []effective.Item
	for _, k := range head.registry.Kinds() {
		if !kinds[k.GVK.Kind] {
			continue
		}
		all, err := profiles.For(k.GVK.GroupKind(), head.registry).Effective(head.offline(), k, nil)
		if err != nil {
			continue // a model without Gateway API paths
		}
		drawn = append(drawn, k)
		for _, it := range all {
			if touched[touchedKey{it.Kind, it.Gateway, it.Listener, it.Route, it.Rule}] {
				items = append(items, it)
			}
		}
	}
	if len(items) == 0 {
		return "", nil
	}
	var b strings.Builder
	err := picture.Mermaid(&b, drawing(head, drawn, items))
	return b.String(), err
}
