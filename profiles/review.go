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
// answers to its create in a cluster holding the other objects: ReviewChanges of objs, all created.
func Review(ctx context.Context, objs []*unstructured.Unstructured, s settings.Settings) ([]finding.Finding, error) {
	return ReviewChanges(ctx, Changes{Objects: objs}, s)
}

// Changes is a change set as the API server would receive it: the cluster after it, which objects
// it updates (each with the stored object it replaces) and which it deletes.
type Changes struct {
	// Objects are the cluster after the change set.
	Objects []*unstructured.Unstructured
	// Old maps each object of Objects that the change set updates to the object it replaces; the
	// other objects are reviewed as creates.
	Old map[*unstructured.Unstructured]*unstructured.Unstructured
	// Deleted are the objects the change set deletes (absent from Objects).
	Deleted []*unstructured.Unstructured
}

// ReviewChanges answers, for every object of the change set that a registered profile claims,
// what the webhook answers to its write: the same profile's Review, over a source built from the
// objects instead of informers (package memory). A create is reviewed in a cluster holding the other
// objects, an update in one holding the object it replaces (and gets it as Request.Old), a delete in
// one holding the deleted object too. Each error and warning is a finding about its object (errors
// with the code of the check that found them, warnings with the code their line starts with); its
// Text is the CLI contract's line. Objects are reviewed in the order of the table's profiles, then
// of the registry's kinds, then by namespace/name (deletes after writes), so the answer is a function
// of the input alone.
func ReviewChanges(ctx context.Context, c Changes, s settings.Settings) ([]finding.Finding, error) {
	reg := s.Registry()
	type job struct {
		u       *unstructured.Unstructured
		op      profile.Operation
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
	add := func(u *unstructured.Unstructured, op profile.Operation) {
		gk := u.GroupVersionKind().GroupKind()
		for i, p := range registered {
			if p.Claims(gk, reg) {
				jobs = append(jobs, job{u: u, op: op, gk: gk, p: p, profile: i, kind: kindOrder[gk]})
				return
			}
		}
	}
	for _, u := range c.Objects {
		op := profile.Create
		if c.Old[u] != nil {
			op = profile.Update
		}
		add(u, op)
	}
	for _, u := range c.Deleted {
		add(u, profile.Delete)
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
		if (a.op == profile.Delete) != (b.op == profile.Delete) {
			return b.op == profile.Delete
		}
		return profile.NSName(a.u) < profile.NSName(b.u)
	})
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // stops the state's background builders
	// The deleted objects are in the source from the start, so that their kinds count as installed,
	// then taken out: the cluster after the change set.
	all := append(append([]*unstructured.Unstructured(nil), c.Objects...), c.Deleted...)
	src, err := memory.New(ctx, all, memory.Options{Kinds: reg.Kinds(), Own: Own(), Backend: Backend(s)})
	if err != nil {
		return nil, fmt.Errorf("reading the input as a cluster: %w", err)
	}
	for _, u := range c.Deleted {
		if err := src.Remove(u); err != nil {
			return nil, err
		}
	}
	if err := Prepare(src.State, s); err != nil { // as a replica does before it reports ready
		return nil, fmt.Errorf("reading the input as a cluster: %w", err)
	}
	var out []finding.Finding
	for _, j := range jobs {
		// The cluster as the API server holds it when the write arrives, then as it was.
		before, after := j.u, j.u // taken out, put in; nil: none
		switch j.op {
		case profile.Create:
			after = nil
		case profile.Update:
			after = c.Old[j.u]
		case profile.Delete:
			before = nil
		}
		r := profile.Request{GroupKind: j.gk, Operation: j.op, Object: j.u, Settings: s, Registry: reg, Source: src, Paths: true}
		if j.op == profile.Update {
			r.Old = c.Old[j.u]
		}
		var d profile.Decision
		if err := src.Try(before, after, func() { d = j.p.Review(r) }); err != nil {
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
