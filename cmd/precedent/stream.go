package main

import (
	"context"
	"errors"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/precedent-dev/precedent/cel"
	"github.com/precedent-dev/precedent/internal/crdcheck"
	"github.com/precedent-dev/precedent/internal/finding"
	"github.com/precedent-dev/precedent/internal/inventory"
	"github.com/precedent-dev/precedent/internal/manifest"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/state/memory"
	"github.com/precedent-dev/precedent/profiles"
)

// inputPart is how many objects the input of the files takes through its steps at once (check,
// defaults, sharing, and for validate conversion and release): each step frees or shares some of
// what the objects held as decoded, and the objects of a large input need not all be held whole
// and unshared, with the garbage of their check, at once.
var inputPart = 4096

// newCheckedInput is newInput for the objects of the files (but validate's: newReviewInput), a
// part of them at a time (inputPart): each part is checked against the CRDs (the objects the API
// server would reject are left out, their errors in the input's rejected), defaulted and shared
// with the parts before; then the inventory is built over all of them. The input is the same as
// that of the steps each taken over every object at once.
func newCheckedInput(ctx context.Context, s settings.Settings, admitted []sourced, checker *crdcheck.Checker) (*input, error) {
	reg := s.Registry()
	sharer := manifest.NewSharer()
	kept := make([]*unstructured.Unstructured, 0, len(admitted))
	var srcs []string
	var rejected []finding.Finding
	for start := 0; start < len(admitted); start += inputPart {
		part, partSrcs, errs := check(ctx, checker, admitted[start:min(start+inputPart, len(admitted))], true)
		rejected = append(rejected, errs...)
		if err := applyDefaults(reg, part); err != nil {
			return nil, err
		}
		sharer.Share(part) // defaulted: the last write to the objects' fields; before the views hold them
		kept, srcs = append(kept, part...), append(srcs, partSrcs...)
	}
	o, err := builtInput(s, reg, kept, srcs)
	if err != nil {
		return nil, err
	}
	o.rejected, o.unchecked = rejected, unchecked(reg, kept, checker)
	return o, nil
}

// newReviewInput is newInput for validate, whose review reads a source of its own (package
// memory), a part of the objects at a time (inputPart): each part is checked against the CRDs
// (the objects the API server would reject are left out, their errors in the input's rejected),
// defaulted, checked as the inventory checks objects (inventory.Check; no inventory is built: no
// policy views, no topology input), its Gateway API objects converted for the review's source (those
// it reads typed only kept so, and released from the decoded input: release), and the rest shared
// with the parts before (manifest.Sharer). The input is the same as that of the steps each taken
// over every object at once.
func newReviewInput(ctx context.Context, s settings.Settings, admitted []sourced, checker *crdcheck.Checker) (*input, error) {
	reg := s.Registry()
	st := &stream{reg: reg, checker: checker, whole: wholeKinds(s), sharer: manifest.NewSharer(),
		converted: map[*unstructured.Unstructured]runtime.Object{}, unchecked: map[schema.GroupVersionKind]int{}}
	for start := 0; start < len(admitted); start += inputPart {
		if err := st.add(ctx, admitted[start:min(start+inputPart, len(admitted))]); err != nil {
			return nil, err
		}
	}
	if len(st.problems) > 0 {
		return nil, &exitError{Code: 2, Err: errors.Join(st.problems...)}
	}
	if _, err := cel.New(s.CELCostLimit); err != nil { // the settings' cost limit, checked now
		return nil, err
	}
	return &input{settings: s, registry: reg, objects: st.objects, converted: st.converted, typed: st.typed,
		rejected: st.rejected, unchecked: uncheckedOf(st.unchecked)}, nil
}

// stream is what newReviewInput has made of the parts so far.
type stream struct {
	reg     *policy.Registry
	checker *crdcheck.Checker
	whole   map[schema.GroupKind]bool
	sharer  *manifest.Sharer

	objects   []*unstructured.Unstructured
	converted map[*unstructured.Unstructured]runtime.Object
	typed     []memory.Typed
	rejected  []finding.Finding
	problems  []error
	unchecked map[schema.GroupVersionKind]int
}

// add takes a part of the objects through the steps; a default that cannot be applied is an
// exit-2 error at once (the objects that cannot be converted are, after the last part).
func (st *stream) add(ctx context.Context, part []sourced) error {
	kept, _, rejected := check(ctx, st.checker, part, false)
	st.rejected = append(st.rejected, rejected...)
	if err := applyDefaults(st.reg, kept); err != nil {
		return err
	}
	converted, problems := inventory.Check(st.reg, kept)
	st.problems = append(st.problems, problems...)
	countUnchecked(st.unchecked, st.reg, kept, st.checker) // before release: it reads spec.targetRef
	start := len(st.objects)
	for _, u := range kept { // in input order: the typed objects' order is the input's
		obj, ok := converted[u]
		switch {
		case ok && st.release(u):
			st.typed = append(st.typed, memory.Typed{GVK: u.GroupVersionKind(), Object: obj})
			continue
		case ok:
			st.converted[u] = obj
		}
		st.objects = append(st.objects, u)
	}
	st.sharer.Share(st.objects[start:]) // defaulted: the last writes to their fields
	return nil
}

// wholeKinds are the kinds whose objects some profile reads whole or shows (profile.Profile's
// Reads, Own and Sources: ListenerSets, TCPRoutes, GRPCRoutes, ...), as those read the decoded
// object.
func wholeKinds(s settings.Settings) map[schema.GroupKind]bool {
	whole := map[schema.GroupKind]bool{}
	for _, p := range profiles.All() {
		for _, gks := range [][]schema.GroupKind{p.Reads(), p.Own(), p.Sources(s)} {
			for _, gk := range gks {
				whole[gk] = true
			}
		}
	}
	return whole
}

// release reports whether the review reads converted Gateway API object u in its typed form only
// (its source delivers it typed: memory.Options.Typed), and then drops its fields but its
// apiVersion, kind and metadata: the input keeps it typed only, and u is left to the files'
// placements until those are made (loadFiles). In the generated world at 10x
// (docs/performance.md), the routes' decoded fields held 190 MB until the end of the run, beside
// the typed objects made from them, and what was left of them 90 MB more. An object stays whole
// when some profile reviews its kind (kgateway's routes and Gateways) or reads it whole
// (wholeKinds).
func (st *stream) release(u *unstructured.Unstructured) bool {
	gk := u.GroupVersionKind().GroupKind()
	if st.whole[gk] || profiles.For(gk, st.reg) != nil {
		return false
	}
	for k := range u.Object {
		if k != "apiVersion" && k != "kind" && k != "metadata" {
			delete(u.Object, k)
		}
	}
	return true
}
