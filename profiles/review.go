package profiles

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/precedent-dev/precedent/internal/finding"
	"github.com/precedent-dev/precedent/internal/policy"
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
	// Converted holds objects of Objects already converted to their typed form, not to be
	// converted again (memory.Options.Converted); nil: none.
	Converted map[*unstructured.Unstructured]runtime.Object
	// Typed are objects of the cluster given in their typed form only (memory.Options.Typed): no
	// profile claims them, and none reads them whole.
	Typed []memory.Typed
}

// ReviewChanges answers, for every object of the change set that a registered profile claims,
// what the webhook answers to its write: the same profile's Review, over a source built from the
// objects instead of informers (package memory). A create is reviewed in a cluster holding the other
// objects, an update in one holding the object it replaces (and gets it as Request.Old), a delete in
// one holding the deleted object too; a write its profile answers the same in the cluster after the
// change set (profile.InPlace) is reviewed there, without a trial. Each error and warning is a
// finding about its object (errors with the code of the check that found them, warnings with the
// code their line starts with); its Text is the CLI contract's line. Objects are reviewed in the
// order of the table's profiles, then of the registry's kinds, then by namespace/name (deletes after
// writes), so the answer is a function of the input alone.
func ReviewChanges(ctx context.Context, c Changes, s settings.Settings) ([]finding.Finding, error) {
	r, err := NewSession(ctx, c, s)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.Findings()
}

// Session is ReviewChanges with its source kept: the review of the change set, then the same
// review with two policies' creation order swapped (Swapped), on the one source, reviewing again
// only the policies whose review may read them.
type Session struct {
	c      Changes
	s      settings.Settings
	reg    *policy.Registry
	jobs   []job
	src    *memory.Source
	cancel context.CancelFunc
	// found are the findings of every job in order, once Findings has run; those of job i end at
	// ends[i].
	found []finding.Finding
	ends  []int
}

// job is the review of one write.
type job struct {
	u       *unstructured.Unstructured
	op      profile.Operation
	gk      schema.GroupKind
	p       profile.Profile
	profile int
	kind    int
	// name and group are profile.NSName(u) and gk.String(), made once for the order of the jobs;
	// ref is u's namespace and name, made once for the readers of each swapped pair.
	name, group string
	ref         policy.Ref
}

// NewSession builds the source of change set c and the reviews it calls for (package memory):
// ReviewChanges's, not yet run. Close releases it.
func NewSession(ctx context.Context, c Changes, s settings.Settings) (*Session, error) {
	reg := s.Registry()
	r := &Session{c: c, s: s, reg: reg, jobs: jobsOf(c, reg)}
	if len(r.jobs) == 0 {
		return r, nil
	}
	ctx, r.cancel = context.WithCancel(ctx)
	// The deleted objects are in the source from the start, so that their kinds count as installed,
	// then taken out: the cluster after the change set.
	all := append(append([]*unstructured.Unstructured(nil), c.Objects...), c.Deleted...)
	src, err := memory.New(ctx, all, memory.Options{Kinds: reg.Kinds(), Own: Own(), Backend: Backend(s), Converted: c.Converted, Typed: c.Typed})
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("reading the input as a cluster: %w", err)
	}
	r.src = src
	for _, u := range c.Deleted {
		if err := src.Remove(u); err != nil {
			r.Close()
			return nil, err
		}
	}
	if err := Prepare(src.State, s); err != nil { // as a replica does before it reports ready
		r.Close()
		return nil, fmt.Errorf("reading the input as a cluster: %w", err)
	}
	return r, nil
}

// Close releases the session's source.
func (r *Session) Close() {
	if r.cancel != nil {
		r.cancel()
	}
}

// jobsOf are the reviews change set c calls for, in the order ReviewChanges says.
func jobsOf(c Changes, reg *policy.Registry) []job {
	kindOrder := map[schema.GroupKind]int{}
	for i, k := range reg.Kinds() {
		kindOrder[k.GVK.GroupKind()] = i + 1
	}
	var jobs []job
	add := func(u *unstructured.Unstructured, op profile.Operation) {
		gk := u.GroupVersionKind().GroupKind()
		for i, p := range registered {
			if p.Claims(gk, reg) {
				jobs = append(jobs, job{u: u, op: op, gk: gk, p: p, profile: i, kind: kindOrder[gk], name: profile.NSName(u), group: gk.String(),
					ref: policy.Ref{Namespace: u.GetNamespace(), Name: u.GetName()}})
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
	sort.SliceStable(jobs, func(i, j int) bool {
		a, b := &jobs[i], &jobs[j]
		if a.profile != b.profile {
			return a.profile < b.profile
		}
		if a.kind != b.kind {
			return a.kind < b.kind
		}
		if a.gk != b.gk {
			return a.group < b.group
		}
		if (a.op == profile.Delete) != (b.op == profile.Delete) {
			return b.op == profile.Delete
		}
		return a.name < b.name
	})
	return jobs
}

// Findings reviews every write of the change set (once: later calls return the same findings).
func (r *Session) Findings() ([]finding.Finding, error) {
	if r.ends == nil {
		var found []finding.Finding
		ends := make([]int, len(r.jobs))
		for i, j := range r.jobs {
			fs, err := r.review(j, j.u)
			if err != nil {
				return nil, err
			}
			found = append(found, fs...)
			ends[i] = len(found)
		}
		r.found, r.ends = found, ends
	}
	return slices.Clip(r.found), nil // an append by the caller copies
}

// foundOf are the findings of job i (Findings has run).
func (r *Session) foundOf(i int) []finding.Finding {
	start := 0
	if i > 0 {
		start = r.ends[i-1]
	}
	return r.found[start:r.ends[i]]
}

// review reviews job j with u, j's object or its stand-in, in the cluster as the API server holds
// it when the write arrives, then puts the source back; in the source as it is when j's profile
// answers the same either way (profile.InPlace).
func (r *Session) review(j job, u *unstructured.Unstructured) ([]finding.Finding, error) {
	before, after := u, u // taken out, put in; nil: none
	switch j.op {
	case profile.Create:
		after = nil
	case profile.Update:
		after = r.c.Old[j.u]
	case profile.Delete:
		before = nil
	}
	req := profile.Request{GroupKind: j.gk, Operation: j.op, Object: u, Settings: r.s, Registry: r.reg, Source: r.src, Paths: true}
	if j.op == profile.Update {
		req.Old = r.c.Old[j.u]
	}
	var d profile.Decision
	if ip, ok := j.p.(profile.InPlace); ok && ip.InPlace(j.gk, j.op) {
		d = j.p.Review(req) // the same answer, without a trial that derives the profile's caches anew
	} else if err := r.src.Try([]memory.Change{{Out: before, In: after}}, func() { d = j.p.Review(req) }); err != nil {
		return nil, err
	}
	return findings(u, d), nil
}

// Swapped answers ReviewChanges for the change set with stand-ins for two of its objects (the pair
// with its creation order swapped: order.Pair.Dated): Findings with SwappedWrites's in place.
func (r *Session) Swapped(stand map[*unstructured.Unstructured]*unstructured.Unstructured) ([]finding.Finding, error) {
	again, err := r.SwappedWrites(stand)
	if err != nil {
		return nil, err
	}
	fs, err := r.ByWrite()
	if err != nil {
		return nil, err
	}
	var out []finding.Finding
	for i, f := range fs {
		if g, ok := again[i]; ok {
			f = g
		}
		out = append(out, f...)
	}
	return out, nil
}

// ByWrite are the findings of Findings, one list for each write reviewed, in order (their
// concatenation is Findings).
func (r *Session) ByWrite() ([][]finding.Finding, error) {
	if _, err := r.Findings(); err != nil {
		return nil, err
	}
	out := make([][]finding.Finding, len(r.jobs))
	for i := range r.jobs {
		out[i] = slices.Clip(r.foundOf(i))
	}
	return out, nil
}

// SwappedWrites answers ReviewChanges for the change set with stand-ins for two of its objects (the
// pair with its creation order swapped: order.Pair.Dated) as the findings of the writes reviewed
// again, by index in ByWrite's order; the others' findings are ByWrite's. The stand-ins are written
// in a trial on the session's source, and the writes whose review may read them (profile.Readers;
// every write of the profiles that claim or read their kind when the profile cannot tell) are
// reviewed again in it. The stand-ins keep the objects' kind, namespace, name and targets.
func (r *Session) SwappedWrites(stand map[*unstructured.Unstructured]*unstructured.Unstructured) (map[int][]finding.Finding, error) {
	if _, err := r.Findings(); err != nil || r.src == nil {
		return nil, err // nothing claimed: nothing to review again
	}
	var changes []memory.Change
	var objs []*unstructured.Unstructured
	kinds := map[schema.GroupKind]bool{}
	for u, v := range stand {
		changes = append(changes, memory.Change{Out: u, In: v})
		objs = append(objs, u)
		kinds[u.GroupVersionKind().GroupKind()] = true
	}
	sort.Slice(objs, func(i, j int) bool { return profile.NSName(objs[i]) < profile.NSName(objs[j]) })
	again := r.readers(objs, kinds)
	var redo []int
	for i, j := range r.jobs {
		if again(j) {
			redo = append(redo, i)
		}
	}
	if len(redo) == 0 {
		return nil, nil // no review reads them
	}
	found := make(map[int][]finding.Finding, len(redo))
	var err error
	if terr := r.src.Try(changes, func() {
		for _, i := range redo {
			j := r.jobs[i]
			u := j.u
			if v, ok := stand[u]; ok {
				u = v
			}
			if found[i], err = r.review(j, u); err != nil {
				return
			}
		}
	}); err == nil {
		err = terr
	}
	if err != nil {
		return nil, err
	}
	return found, nil
}

// readers says which jobs' reviews may read objs, policies of kinds: a job of the profile that
// claims them when its Readers says so (all when it cannot tell), and every job of a profile that
// claims or reads one of the kinds.
func (r *Session) readers(objs []*unstructured.Unstructured, kinds map[schema.GroupKind]bool) func(job) bool {
	scoped := -1 // the profile that claims objs, by index in the table, when it says whose reviews read them
	var near func(schema.GroupKind, policy.Ref, profile.Operation) bool
	reads := map[int]bool{}
	for i, p := range registered {
		for gk := range kinds {
			if claims := p.Claims(gk, r.reg); claims || slices.Contains(p.Reads(), gk) || slices.Contains(p.Own(), gk) || slices.Contains(p.Sources(r.s), gk) {
				reads[i] = true
				if rd, ok := p.(profile.Readers); ok && claims && len(kinds) == 1 && scoped < 0 && near == nil {
					scoped, near = i, rd.Readers(r.src, r.s, r.reg, objs)
				}
			}
		}
	}
	return func(j job) bool {
		if near != nil && j.profile == scoped {
			return near(j.gk, j.ref, j.op)
		}
		return reads[j.profile]
	}
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
