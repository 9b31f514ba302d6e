package order

import (
	"fmt"
	"sort"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// MaxPairs bounds how many tied pairs are rerun: each rerun is a whole computation.
const MaxPairs = 32

// Pair is two policies of one kind, namespace and target whose order of creation is unknown.
// First sorts first by name: the engines' tie-break, so the answer computed as is assumes First
// is created first.
type Pair struct {
	First, Second *unstructured.Unstructured
}

// Dependence is a pair whose order changes the answer: Assumed are the lines only the assumed
// order (First created first) gives, Other those only the other order gives.
type Dependence struct {
	Pair
	Assumed, Other []string
}

// Zero reports an object without creationTimestamp: the undated objects of files.
func Zero(u *unstructured.Unstructured) bool {
	t := u.GetCreationTimestamp()
	return t.IsZero()
}

// Ties returns the pairs of undated policies (unknown) of one group/kind and namespace that share
// a target (spec.targetRef or an entry of spec.targetRefs, by group, kind and name), in a stable
// order, at most MaxPairs (more reports whether some were left out).
func Ties(objs []*unstructured.Unstructured, unknown func(*unstructured.Unstructured) bool) (pairs []Pair, more bool) {
	type group struct{ gk, ns, target string }
	members := map[group][]*unstructured.Unstructured{}
	var keys []group
	for _, u := range objs {
		if !unknown(u) {
			continue
		}
		for _, t := range targets(u) {
			g := group{u.GroupVersionKind().GroupKind().String(), u.GetNamespace(), t}
			if _, ok := members[g]; !ok {
				keys = append(keys, g)
			}
			members[g] = append(members[g], u)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.gk != b.gk {
			return a.gk < b.gk
		}
		if a.ns != b.ns {
			return a.ns < b.ns
		}
		return a.target < b.target
	})
	seen := map[[2]string]bool{}
	for _, g := range keys {
		m := members[g]
		sort.Slice(m, func(i, j int) bool { return m[i].GetName() < m[j].GetName() })
		for i := range m {
			for j := i + 1; j < len(m); j++ {
				id := [2]string{g.gk + " " + g.ns + "/" + m[i].GetName(), g.gk + " " + g.ns + "/" + m[j].GetName()}
				if m[i].GetName() == m[j].GetName() || seen[id] {
					continue
				}
				seen[id] = true
				if len(pairs) == MaxPairs {
					return pairs, true
				}
				pairs = append(pairs, Pair{First: m[i], Second: m[j]})
			}
		}
	}
	return pairs, false
}

// targets are the keys "group/kind/name" of the objects a policy targets (sectionName aside: a
// section is a more specific target, and policies of two sections of one target are ordered by
// specificity, which a rerun shows as no change).
func targets(u *unstructured.Unstructured) []string {
	var refs []map[string]interface{}
	if r, ok, _ := unstructured.NestedMap(u.Object, "spec", "targetRef"); ok {
		refs = append(refs, r)
	}
	if l, ok, _ := unstructured.NestedSlice(u.Object, "spec", "targetRefs"); ok {
		for _, e := range l {
			if r, ok := e.(map[string]interface{}); ok {
				refs = append(refs, r)
			}
		}
	}
	out := make([]string, 0, len(refs))
	have := map[string]bool{}
	for _, r := range refs {
		k := fmt.Sprintf("%v/%v/%v", r["group"], r["kind"], r["name"])
		if !have[k] {
			have[k] = true
			out = append(out, k)
		}
	}
	return out
}

// base is the time given to undated objects in a rerun: any real time; only the order counts.
var base = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// Swapped returns objs with p.Second created one second before p.First: the copies of Dated, the
// other objects shared.
func Swapped(objs []*unstructured.Unstructured, p Pair) []*unstructured.Unstructured {
	first, second := p.Dated()
	out := make([]*unstructured.Unstructured, len(objs))
	for i, u := range objs {
		switch u {
		case p.First:
			out[i] = first
		case p.Second:
			out[i] = second
		default:
			out[i] = u
		}
	}
	return out
}

// Dated returns copies of p.First and p.Second in which Second is created one second before First.
// Undated objects get a date (the engines differ on where an undated policy sorts); dated ones keep
// theirs, Second taking First's.
func (p Pair) Dated() (first, second *unstructured.Unstructured) {
	t := p.First.GetCreationTimestamp().Time
	if t.IsZero() {
		t = base
	}
	first, second = p.First.DeepCopy(), p.Second.DeepCopy()
	second.SetCreationTimestamp(metav1.NewTime(t))
	first.SetCreationTimestamp(metav1.NewTime(t.Add(time.Second)))
	return first, second
}

// Depends computes lines over objs as they are (run(nil)), then over each tied pair swapped (run(p):
// the objects of Swapped), and returns the pairs whose order changes the lines: Assumed are the
// lines of the assumed order that the other lacks (as a multiset: of a line it has k more times,
// its last k), Other the other order's that it lacks. run must not keep or change the objects.
// DependsIn is the same for a computation whose reruns change only some of its lines.
func Depends(objs []*unstructured.Unstructured, unknown func(*unstructured.Unstructured) bool, run func(p *Pair) ([]string, error)) (deps []Dependence, more bool, err error) {
	all := func() ([][]string, error) {
		ls, err := run(nil)
		return [][]string{ls}, err
	}
	return DependsIn(objs, unknown, all, func(p Pair) (map[int][]string, error) {
		ls, err := run(&p)
		return map[int][]string{0: ls}, err
	})
}

// Lines are the warnings of d (with code PRC-W100), each with one subject: the first names the
// first policy and the other, and the assumed order; then one per line of the other order's
// outcome, about the second policy: "<Kind> <second>: if created before <first>: <line>".
func (d Dependence) Lines() []string {
	kind := d.First.GetKind()
	first, second := name(d.First), name(d.Second)
	out := []string{Unknown.Linef("%s %s: the outcome depends on whether it or %s %s is created first, which the input does not say (no creationTimestamp); the other lines assume %s is created first (name order); if %s is created first instead: %d line%s below", kind, first, kind, second, first, second, shown(d), plural(shown(d)))}
	for _, l := range d.Other {
		out = append(out, Unknown.Linef("%s %s: if created before %s: %s", kind, second, first, l))
	}
	if len(d.Other) == 0 {
		for _, l := range d.Assumed {
			out = append(out, Unknown.Linef("%s %s: if created before %s, this does not hold: %s", kind, second, first, l))
		}
	}
	return out
}

// Note is the warning that some pairs were not rerun.
func Note() string {
	return Unknown.Linef("more than %d pairs of policies have no known order of creation: only the first %d were checked for an outcome that depends on it", MaxPairs, MaxPairs)
}

func name(u *unstructured.Unstructured) string {
	if u.GetNamespace() == "" {
		return u.GetName()
	}
	return u.GetNamespace() + "/" + u.GetName()
}

// shown is how many lines follow the first: the other order's, else the assumed lines that do
// not hold in it.
func shown(d Dependence) int {
	if len(d.Other) > 0 {
		return len(d.Other)
	}
	return len(d.Assumed)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
