package validate

import (
	"bytes"
	"hash/maphash"
	"reflect"
	"slices"

	"github.com/precedent-dev/precedent/internal/effective"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/topology"
)

// Project compares the effective policies before and after a write of one policy, on the paths
// that policy reaches (before or after), and returns the warnings docs/checks.md lists. written is nil for
// a delete. Warnings name policies, routes and rule ids only, never rule values.
func Project(before *effective.Snapshot, ref policy.Ref, written *policy.Policy) []string {
	lines, _ := project(before, ref, written, true, false)
	return lines
}

// ProjectPaths is Project, with the paths each warning is about (PathName), by the warning's line;
// a warning absent from affected names no path.
func ProjectPaths(before *effective.Snapshot, ref policy.Ref, written *policy.Policy) (lines []string, affected map[string][]string) {
	return project(before, ref, written, true, true)
}

// project is Project, or ProjectPaths with paths; reuse allows the shortcut for a write the same as
// the stored version (tests compare it with the long way).
func project(before *effective.Snapshot, ref policy.Ref, written *policy.Policy, reuse, paths bool) ([]string, map[string][]string) {
	old, hadOld := before.Policy(ref)
	after := afterWrite(before, ref, written, reuse && hadOld && written != nil && written.SameAs(old))
	var was, is []int
	if hadOld {
		was = before.PathsOf(old)
	}
	if written != nil {
		is = after.PathsOf(written)
	}
	idx := after.Graph.Union(was, is) // in path order, as warnings list places

	w := &warnings{graph: after.Graph, kind: kindOf(before, written), rulesField: before.Kind.RulesField, ref: ref, all: make([]note, 0, 8),
		fold: before.Kind.Fold(), model: modelName(before.Kind.Fold()), deleted: written == nil}
	if paths {
		w.keyOf = after.KeyOf
	}
	if written != nil {
		w.targets(after, written)
	}
	pr := newProjection(before, after, w, old, written)
	for _, i := range idx {
		pr.path(i)
	}
	if written != nil {
		for i, id := range written.Unset {
			if !w.unsetUsed[id] && policy.ValidRuleID(written.Kind, id) {
				w.unsetRemovesNothing(i, id)
			}
		}
	}
	// The summary comes first: it is about the whole write, and the warning limit cuts from the end.
	if len(pr.changedRoutes) == 0 { // counted only when countChanges
		return w.list(nil), w.affected
	}
	summary := w.summary(written == nil, len(pr.changedRoutes))
	lines := w.list([]string{summary})
	w.affect(summary, pr.changedPaths.list)
	// What takes the place of the rules an update takes out of effect comes next: after the
	// summary, before the rest (the warning limit cuts from the end), as for a delete.
	lines = slices.Insert(lines, 1, pr.fallen.lines(codeChangeFallsBack, "this change", kindOf(before, written))...)
	return lines, w.affected
}

// afterWrite is the snapshot after the write of ref as written (nil: a delete). unchanged says the
// write is a re-apply that changes nothing the engine reads (GitOps pipelines re-apply every
// manifest, often with a server-side dry-run first): the effective policies after are those in
// force, already folded in before's memo, and the warnings are what the stored version's events say.
func afterWrite(before *effective.Snapshot, ref policy.Ref, written *policy.Policy, unchanged bool) *effective.Snapshot {
	switch {
	case written == nil:
		return before.Without(ref)
	case unchanged:
		return before
	}
	return before.With(written)
}

// projection is project's walk over the paths a write reaches. Paths with the same folds before and
// after have the same warnings and the same change: each is looked at once. Folds are told apart by
// their fold keys (effective.Snapshot.FoldKeyPath: the policies of the path, by identity), which in
// one snapshot name one fold, and so one effective policy and one set of mentions of ref. The
// warnings need only the events that name the written policy (effective.Mentions), which the engine
// gives without folding the rules of higher policies the write cannot reach.
type projection struct {
	before, after *effective.Snapshot
	w             *warnings
	written       *policy.Policy // nil: a delete
	// countChanges: the summary of changed routes is given for Gateway-level writes (before or
	// after) and for deletes only.
	countChanges bool
	// beforeFollows: the write keeps the policy's targets (a create, or an update with the same
	// targetRefs), so the policies of a path before are those after without the written one, in the
	// same places: paths with the same fold after have the same fold before, which need not be
	// looked up again.
	beforeFollows bool
	edited        map[string]bool // rule ids of ref whose body this write changes
	outcomes      []outcome       // a handful of distinct ones: searched, not hashed
	changedRoutes map[topology.Key]bool
	changedPaths  set[int32] // the paths whose effective policy changes, by index
	keyAfter      []byte     // the fold keys of the path looked at, in scratch
	keyBefore     []byte
	scratch       [2][256]byte
	seed          maphash.Seed
	keys          []byte // the keys of the outcomes, one after the other
	// updated: the write replaces a stored version; fallen gathers, on the paths whose folds are
	// compared, the rules of the stored version in effect there that the write takes out of effect.
	updated bool
	fallen  fallTally
}

// outcome is what the paths of one key get. The key is the fold keys after (for the mentions of
// ref; for the rules, when compared) and before (when read), each marked as read by a leading byte.
// The outcome holds which parts were read, their hashes, to pass over most outcomes at a glance,
// and the parts themselves, kept in the projection's keys.
type outcome struct {
	set     [3]bool
	sum     [3]uint64
	key     [3]span
	compare bool
	msgs    []int // warnings, by their number in w
	changed bool
	falls   []fall // the rules of the updated policy in effect before, not after
}

// span is a part of the projection's keys.
type span struct{ from, to int }

// pathKey is the key of one path, as outcome holds it, with the fold keys.
type pathKey struct {
	key [3][]byte
	sum [3]uint64
}

// hash fills in the hashes of k's parts.
func (pr *projection) hash(k *pathKey) {
	for j, part := range k.key {
		if part != nil {
			k.sum[j] = maphash.Bytes(pr.seed, part)
		}
	}
}

// same reports whether the first n parts of x's key are those of k.
func (pr *projection) same(x *outcome, k *pathKey, n int) bool {
	for j := 0; j < n; j++ {
		if x.set[j] != (k.key[j] != nil) || x.sum[j] != k.sum[j] {
			return false
		}
	}
	for j := 0; j < n; j++ {
		if !bytes.Equal(pr.keys[x.key[j].from:x.key[j].to], k.key[j]) {
			return false
		}
	}
	return true
}

// keep copies k into the projection's keys.
func (pr *projection) keep(k []byte) span {
	from := len(pr.keys)
	pr.keys = append(pr.keys, k...)
	return span{from, len(pr.keys)}
}

func newProjection(before, after *effective.Snapshot, w *warnings, old, written *policy.Policy) *projection {
	pr := &projection{before: before, after: after, w: w, written: written, outcomes: make([]outcome, 0, 8), updated: old != nil && written != nil}
	pr.countChanges = written == nil || (old != nil && isHighLevel(old)) || (written != nil && isHighLevel(written))
	if old != nil && written != nil && after != before {
		pr.edited = editedRules(old, written)
	}
	pr.beforeFollows = written != nil && (old == nil || slices.Equal(effective.TargetsOf(old), effective.TargetsOf(written)))
	pr.keyAfter, pr.keyBefore = pr.scratch[0][:0], pr.scratch[1][:0]
	pr.seed = maphash.MakeSeed()
	return pr
}

// find returns the outcome that match accepts, or nil.
func (pr *projection) find(match func(*outcome) bool) *outcome {
	for j := range pr.outcomes {
		if match(&pr.outcomes[j]) {
			return &pr.outcomes[j]
		}
	}
	return nil
}

// path looks at the path with index i.
func (pr *projection) path(i int) {
	ref := pr.w.ref
	path := &pr.after.Graph.Paths[i]
	compare := pr.countChanges && path.RouteKind != ""
	var k pathKey
	var mentions *effective.Mentions
	if pr.written != nil {
		mentions, pr.keyAfter = pr.after.MentionsPathKey(append(pr.keyAfter[:0], 1), i, ref)
		k.key[0] = pr.keyAfter // one fold after, one mentions of ref
	}
	// Where the write may take rules of other policies out of the path (displace.go) and the
	// folds are not compared, the fold before is read (memoized on the snapshot in force).
	displace := !compare && mentions != nil && mayDisplace(mentions, ref)
	pr.hash(&k)
	var o *outcome
	if pr.beforeFollows {
		o = pr.find(func(x *outcome) bool { return x.compare == compare && pr.same(x, &k, 1) })
	}
	var ra, rb effective.Result
	switch {
	case o == nil && compare && pr.after != pr.before && pr.narrow(i, &k, &ra, &rb):
	case o == nil && compare:
		if k.key[0] == nil {
			ra, pr.keyAfter = pr.after.ComputePathKey(append(pr.keyAfter[:0], 1), i)
			k.key[1] = pr.keyAfter
		} else {
			ra, k.key[1] = pr.after.ComputePath(i), k.key[0] // the same fold after
		}
		rb, pr.keyBefore = pr.before.ComputePathKey(append(pr.keyBefore[:0], 1), i)
		k.key[2] = pr.keyBefore
	case o == nil && displace:
		rb, pr.keyBefore = pr.before.ComputePathKey(append(pr.keyBefore[:0], 1), i)
		k.key[2] = pr.keyBefore
	}
	if o == nil {
		pr.hash(&k)
		o = pr.find(func(x *outcome) bool { return x.compare == compare && pr.same(x, &k, 3) })
	}
	if o == nil {
		o = pr.look(i, &k, compare, displace, mentions, ra, rb)
	}
	for _, n := range o.msgs {
		pr.w.addAt(n, i)
	}
	for _, f := range o.falls {
		pr.fallen.add(f, path.Route)
	}
	if o.changed {
		if pr.changedRoutes == nil {
			pr.changedRoutes = map[topology.Key]bool{}
		}
		pr.changedRoutes[path.Route] = true
		pr.changedPaths.add(int32(i))
	}
}

// narrowFolds turns narrow on; tests turn it off to compare with the whole folds.
var narrowFolds = true

// narrow puts into ra and rb the effective policies of the path with index i after and before the
// write for the rules it may change only (effective.Snapshot.ChangePath), and their fold keys into
// k, unless the rules outside cannot be shown the same: what look reads of them (the rules that
// differ, the events that name the written policy) is then the same as from the whole folds,
// without folding a big policy beside the written one on the request path.
func (pr *projection) narrow(i int, k *pathKey, ra, rb *effective.Result) bool {
	if !narrowFolds {
		return false
	}
	after, before, ok := pr.after.ChangePath(pr.before, i)
	if !ok {
		return false
	}
	*ra, *rb = after, before
	if k.key[0] == nil {
		pr.keyAfter = pr.after.FoldKeyPath(append(pr.keyAfter[:0], 1), i)
		k.key[1] = pr.keyAfter
	} else {
		k.key[1] = k.key[0] // the same fold after
	}
	pr.keyBefore = pr.before.FoldKeyPath(append(pr.keyBefore[:0], 1), i)
	k.key[2] = pr.keyBefore
	return true
}

// look makes the outcome of the path with index i, the first with its key: the warnings of the
// mentions of ref, of the rules displaced (from the folds compared, or from the mentions and the
// fold before) and whether the effective policy changed.
func (pr *projection) look(i int, k *pathKey, compare, displace bool, mentions *effective.Mentions, ra, rb effective.Result) *outcome {
	x := outcome{set: [3]bool{k.key[0] != nil, k.key[1] != nil, k.key[2] != nil}, sum: k.sum, compare: compare}
	x.key[0], x.key[1] = pr.keep(k.key[0]), pr.keep(nil)
	if x.set[1] {
		x.key[1] = x.key[0] // the same fold after
		if !x.set[0] {
			x.key[1] = pr.keep(k.key[1])
		}
	}
	x.key[2] = pr.keep(k.key[2])
	pr.outcomes = append(pr.outcomes, x)
	o := &pr.outcomes[len(pr.outcomes)-1]
	if mentions != nil {
		for k := range mentions.Events {
			if n, ok := pr.w.event(&mentions.Events[k]); ok {
				o.msgs = append(o.msgs, n)
			}
		}
	}
	switch {
	case compare && pr.after != pr.before: // else the same fold on both sides
		o.msgs = append(o.msgs, pr.w.displaced(pr.after, i, ra, rb)...)
		if pr.updated {
			o.falls = fallsOf(rb, ra, pr.w.ref)
		}
	case displace:
		o.msgs = append(o.msgs, pr.w.displacedMentions(pr.after, i, mentions, rb)...)
	}
	o.changed = compare && !sameRules(rb.Rules, ra.Rules, pr.w.ref, pr.edited)
	return o
}

func kindOf(s *effective.Snapshot, p *policy.Policy) string {
	if p != nil {
		return p.Kind.GVK.Kind
	}
	return s.Kind.GVK.Kind
}

func isHighLevel(p *policy.Policy) bool {
	for _, t := range p.Targets {
		if t.Kind == "Gateway" || t.Kind == "GatewayClass" || t.Kind == "ListenerSet" {
			return true
		}
	}
	return false
}

// sameRules compares two effective policies, before and after a write of ref. A rule of another
// policy, from the same block on both sides, is the same rule (the write leaves other policies as
// they are); a rule of ref on both sides, from the same block, is the same unless edited says its
// body changed (computed once per write, not once per path).
func sameRules(a, b map[string]effective.Entry, ref policy.Ref, edited map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for id, ea := range a {
		eb, ok := b[id]
		if !ok || ea.Source != eb.Source {
			return false
		}
		switch {
		case ea.Block != eb.Block:
		case ea.Source != ref:
			continue
		case edited != nil:
			if edited[id] {
				return false
			}
			continue
		}
		if !reflect.DeepEqual(ea.Body, eb.Body) {
			return false
		}
	}
	return true
}

// editedRules lists the rule ids whose body differs between two versions of a policy, per block.
func editedRules(old, cur *policy.Policy) map[string]bool {
	out := map[string]bool{}
	pairs := [][2]*policy.Block{{old.Bare, cur.Bare}, {old.Defaults, cur.Defaults}, {old.Overrides, cur.Overrides}}
	for _, pr := range pairs {
		var a, b map[string]interface{}
		if pr[0] != nil {
			a = pr[0].Rules
		}
		if pr[1] != nil {
			b = pr[1].Rules
		}
		for id, body := range a {
			if other, ok := b[id]; !ok || !reflect.DeepEqual(body, other) {
				out[id] = true
			}
		}
		for id := range b {
			if _, ok := a[id]; !ok {
				out[id] = true
			}
		}
	}
	return out
}
