package main

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/precedent-dev/precedent/internal/diff"
	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/profile"
	"github.com/precedent-dev/precedent/profiles"
)

// Kinds of one name in two groups (kuadrant.io and policy.precedent.dev both have AuthPolicy and
// RateLimitPolicy; two groups have a TrafficPolicy): the output names them Kind.group where the
// input holds both, and --kind Kind means the one the input holds.

// present are the kinds of which the inputs (the files or the cluster) hold objects.
func present(ins ...*input) map[schema.GroupKind]bool {
	out := map[schema.GroupKind]bool{}
	for _, in := range ins {
		if in == nil {
			continue
		}
		for _, u := range in.objects {
			out[u.GroupVersionKind().GroupKind()] = true
		}
	}
	return out
}

// twins are the Kind names of which the inputs hold objects in two groups or more.
func twins(ins ...*input) map[string]bool {
	groups := map[string]int{}
	for gk := range present(ins...) {
		groups[gk.Kind]++
	}
	out := map[string]bool{}
	for k, n := range groups {
		if n > 1 {
			out[k] = true
		}
	}
	return out
}

// qualified is kind, or Kind.group when twins holds its name.
func qualified(kind, group string, twins map[string]bool) string {
	if twins[kind] && group != "" {
		return kind + "." + group
	}
	return kind
}

// resolveKind finds the managed kind --kind names, as the registry resolves it, except that a
// Kind of several managed groups means the one the inputs hold objects of: it is ambiguous only
// when they hold more than one (or none).
func resolveKind(reg *policy.Registry, name string, ins ...*input) (policy.Kind, error) {
	k, err := reg.Resolve(name)
	if err == nil {
		return k, nil
	}
	var same []policy.Kind
	for _, k := range reg.Kinds() {
		if strings.EqualFold(k.GVK.Kind, name) {
			same = append(same, k)
		}
	}
	if len(same) < 2 {
		return policy.Kind{}, err
	}
	have := present(ins...)
	var held []policy.Kind
	for _, k := range same {
		if have[k.GVK.GroupKind()] {
			held = append(held, k)
		}
	}
	switch len(held) {
	case 1:
		return held[0], nil
	case 0:
		return policy.Kind{}, fmt.Errorf("%w (there are objects of neither; give Kind.group)", err)
	}
	names := make([]string, 0, len(held))
	for _, k := range held {
		names = append(names, k.GVK.Kind+"."+k.GVK.Group)
	}
	sort.Strings(names)
	return policy.Kind{}, fmt.Errorf("%s is ambiguous: there are objects of %s; give Kind.group", name, strings.Join(names, " and "))
}

// withGroup sets the group of the items of kind k.
func withGroup(items []effective.Item, k policy.Kind) []effective.Item {
	for i := range items {
		items[i].Kind, items[i].Group = k.GVK.Kind, k.GVK.Group
	}
	return items
}

// groupChanges sets the API group of the changes a profile gave: the group of the kind of that
// name the profile handles (a managed kind it models, or a kind it owns).
func groupChanges(changes []diff.Change, p profile.Profile, reg *policy.Registry) {
	for i := range changes {
		if changes[i].APIGroup != "" {
			continue
		}
		for _, gk := range append(kindsOf(reg), p.Own()...) {
			if gk.Kind == changes[i].Kind && (slices.Contains(p.Own(), gk) || profiles.For(gk, reg) == p) {
				changes[i].APIGroup = gk.Group
				break
			}
		}
	}
}

func kindsOf(reg *policy.Registry) []schema.GroupKind {
	var out []schema.GroupKind
	for _, k := range reg.Kinds() {
		out = append(out, k.GVK.GroupKind())
	}
	return out
}

// qualifyChanges names the kinds of the changes Kind.group where twins holds their name (for the
// tables and the markdown; -o json carries the group in a field of its own).
func qualifyChanges(changes []diff.Change, twins map[string]bool) {
	for i := range changes {
		changes[i].Kind = qualified(changes[i].Kind, changes[i].APIGroup, twins)
	}
}
