package profiles

import (
	"context"
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/precedent-dev/precedent/internal/profile"
	"github.com/precedent-dev/precedent/internal/settings"
	"github.com/precedent-dev/precedent/internal/state/memory"
	"github.com/precedent-dev/precedent/internal/warning"
)

// Review answers, for every object of objs that a registered profile claims, what the webhook
// answers to its create in a cluster holding the other objects: the same profile's Review, over a
// source built from objs instead of informers (package memory). Errors are lines in the CLI
// contract's format ("<Kind> <ns>/<name>: <field path>: <reason>"), warnings are prefixed with
// "<Kind> <ns>/<name>: ". Objects are reviewed in the order of the table's profiles, then of the
// registry's kinds, then by namespace/name, so the answer is a function of the input alone.
func Review(ctx context.Context, objs []*unstructured.Unstructured, s settings.Settings) (errs, warns []string, err error) {
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
		return nil, nil, nil
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
		return nil, nil, fmt.Errorf("reading the input as a cluster: %w", err)
	}
	if err := Prepare(src.State, s); err != nil { // as a replica does before it reports ready
		return nil, nil, fmt.Errorf("reading the input as a cluster: %w", err)
	}
	for _, j := range jobs {
		// As a create: the source holds every other object of the input.
		if err := src.Remove(j.u); err != nil {
			return nil, nil, err
		}
		d := j.p.Review(profile.Request{GroupKind: j.gk, Object: j.u, Settings: s, Registry: reg, Source: src})
		if err := src.Add(j.u); err != nil {
			return nil, nil, err
		}
		e, w := lines(j.u, d)
		errs, warns = append(errs, e...), append(warns, w...)
	}
	return errs, warns, nil
}

// lines renders a decision on u as validate's lines.
func lines(u *unstructured.Unstructured, d profile.Decision) (errs, warns []string) {
	subject := fmt.Sprintf("%s %s", u.GetKind(), profile.NSName(u))
	switch {
	case d.Unavailable != nil:
		errs = append(errs, fmt.Sprintf("%s: %v", subject, d.Unavailable))
	case d.Internal != nil:
		errs = append(errs, fmt.Sprintf("%s: %v", subject, d.Internal))
	}
	errs = append(errs, profile.Lines(u, warning.Coded(d.Errs, d.CheckIDs))...)
	for _, w := range d.Warnings {
		warns = append(warns, warning.Subject(subject, w))
	}
	return errs, warns
}
