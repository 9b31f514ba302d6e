package profiles

import (
	"context"
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/precedent-dev/precedent/internal/finding"
	"github.com/precedent-dev/precedent/internal/profile"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/state/memory"
)

// Review answers, for every object of objs that a registered profile claims, what the webhook
// answers to its create in a cluster holding the other objects: the same profile's Review, over a
// source built from objs instead of informers (package memory). Each error and warning is a
// finding about its object (errors with the code of the check that found them, warnings with the
// code their line starts with); its Text is the CLI contract's line. Objects are reviewed in the order of the table's profiles, then of the
// registry's kinds, then by namespace/name, so the answer is a function of the input alone.
func Review(ctx context.Context, objs []*unstructured.Unstructured, s settings.Settings) ([]finding.Finding, error) {
	reg := s.Registry()
	type job struct {
		u       *unstructured.Unstructured
		gk      schema.GroupKind
		p       profile.Profile
		profile int
		kind    int
	}
	kindOrder := map[schema.GroupKind]int{}
	for i, k := range reg.Kinds() {
		kindOrder[k.GVK.GroupKind()] = i + 1
	}
	var jobs []job
	for _, u := range objs {
		gk := u.GroupVersionKind().GroupKind()
		for i, p := range registered {
			if p.Claims(gk, reg) {
				jobs = append(jobs, job{u: u, gk: gk, p: p, profile: i, kind: kindOrder[gk]})
				break
			}
		}
	}
	if len(jobs) == 0 {
		return nil, nil
	}
	sort.SliceStable(jobs, func(i, j int) bool {
		a, b := jobs[i], jobs[j]
		if a.profile != b.profile {
			return a.profile < b.profile
		}
		if a.kind != b.kind {
			return a.kind < b.kind
		}
		if a.gk != b.gk {
			return a.gk.String() < b.gk.String()
		}
		return profile.NSName(a.u) < profile.NSName(b.u)
	})
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // stops the state's background builders
	src, err := memory.New(ctx, objs, memory.Options{Kinds: reg.Kinds(), Own: Own(), Backend: schema.GroupKind{Group: s.Access.BackendGroup, Kind: s.Access.BackendKind}})
	if err != nil {
		return nil, fmt.Errorf("reading the input as a cluster: %w", err)
	}
	if err := Prepare(src.State, s); err != nil { // as a replica does before it reports ready
		return nil, fmt.Errorf("reading the input as a cluster: %w", err)
	}
	var out []finding.Finding
	for _, j := range jobs {
		// As a create: the source holds every other object of the input.
		if err := src.Remove(j.u); err != nil {
			return nil, err
		}
		d := j.p.Review(profile.Request{GroupKind: j.gk, Object: j.u, Settings: s, Registry: reg, Source: src, Paths: true})
		if err := src.Add(j.u); err != nil {
			return nil, err
		}
		out = append(out, findings(j.u, d)...)
	}
	return out, nil
}

// findings are a decision on u as validate's findings: errors first, then warnings.
func findings(u *unstructured.Unstructured, d profile.Decision) []finding.Finding {
	var out []finding.Finding
	switch {
	case d.Unavailable != nil:
		out = append(out, finding.Error(u, d.Unavailable))
	case d.Internal != nil:
		out = append(out, finding.Error(u, d.Internal))
	}
	out = append(out, finding.Errors(u, d.Errs, d.CheckIDs)...)
	obj := finding.ObjectOf(u)
	for _, w := range d.Warnings {
		f := finding.Warning(obj, w)
		if ps, ok := d.Affected[w]; ok {
			f.Affected = ps
		}
		out = append(out, f)
	}
	return out
}
