package effective

import (
	"slices"
	"strconv"
	"sync"

	"github.com/precedent-dev/precedent/cel"
	"github.com/precedent-dev/precedent/internal/policy"
)

// condMemo remembers the outcome of `when` conditions by what they read. A condition reads the
// effective policy so far; most read a few named rules (cel.Evaluator.Reads tells which), so its
// outcome is a function of the expression and those rules' bodies. A body is named by its rule:
// the policy that holds it, the block and the rule id (a rule body is an immutable part of one
// policy object), so the same rule met on many paths, or on the same path before and after a
// write, is evaluated once. Two versions of a policy have rules of the same names: an outcome keeps
// the policies it read rules of, and is taken only for those very policies. A view's memo reads
// through to its base snapshot's, which lives as long as the snapshot.
type condMemo struct {
	parent *condMemo
	mu     sync.RWMutex
	m      map[string]condResult
}

type condResult struct {
	ok  bool
	err error
	// from are the policies whose rules the key names, in the key's order (each by its Ref's
	// address, which is the policy's: Entry.src).
	from []*policy.Ref
}

func newCondMemo(parent *condMemo) *condMemo {
	return &condMemo{parent: parent, m: map[string]condResult{}}
}

// load returns the outcome stored under key for rules of the policies from.
func (m *condMemo) load(key []byte, from []*policy.Ref) (condResult, bool) {
	for ; m != nil; m = m.parent {
		m.mu.RLock()
		r, ok := m.m[string(key)] // a lookup: no allocation
		m.mu.RUnlock()
		if ok && slices.Equal(r.from, from) {
			return r, true
		}
	}
	return condResult{}, false
}

// size is the number of outcomes held (not the parent's).
func (m *condMemo) size() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return len(m.m)
}

func (m *condMemo) store(key []byte, r condResult) {
	m.mu.Lock()
	m.m[string(key)] = r
	m.mu.Unlock()
}

// condKey appends to b the memo key of evaluating expr on the folder's effective policy: the
// expression and, for each rule it reads, that rule's body by name (its policy, block and id) or
// by value (or its absence); it appends to from the policies it names rules of. ok is false when
// the expression may read more than named rules, or a body has no name or value to key by.
func (f *folder) condKey(b []byte, from []*policy.Ref, expr string) ([]byte, []*policy.Ref, bool) {
	if f.kind.Fold() == policy.FoldFields {
		return nil, nil, false // a condition reads the whole configuration object
	}
	paths, ok := f.cond.Reads(expr, readDepth(f.kind))
	if !ok {
		return nil, nil, false
	}
	b = append(b, expr...)
	for _, p := range paths {
		id, isRule := ruleRead(f.kind, p)
		if !isRule {
			continue // the bare form has nothing else: such a read is the same on every policy
		}
		b = append(b, 0)
		b = append(b, id...)
		e, found := f.ep[id]
		if _, isMap := e.Body.(map[string]interface{}); isMap {
			if e.src == nil {
				return nil, nil, false
			}
			b = append(append(b, "=rule:"...), e.Source.Namespace...)
			b = append(append(append(append(b, 0), e.Source.Name...), 0), e.Block...)
			from = append(from, e.src)
			continue
		}
		if b, ok = appendValue(b, e.Body, found); !ok {
			return nil, nil, false
		}
	}
	return b, from, true
}

// appendValue appends a rule body that is no object, by value; false for a type it does not know.
func appendValue(b []byte, body interface{}, found bool) ([]byte, bool) {
	switch body := body.(type) {
	case nil:
		if found {
			return append(b, "=null"...), true
		}
		return append(b, "=absent"...), true
	case string:
		return strconv.AppendQuote(append(b, "=string:"...), body), true
	case bool:
		return strconv.AppendBool(append(b, "=bool:"...), body), true
	case int64:
		return strconv.AppendInt(append(b, "=int64:"...), body, 10), true
	case float64:
		return strconv.AppendFloat(append(b, "=float64:"...), body, 'g', -1, 64), true
	}
	return nil, false
}

// readDepth is the depth of the field paths that name one rule in the bare form of kind k:
// [rulesField id], or [rulesField section name] for a kind with sections.
func readDepth(k policy.Kind) int {
	if len(k.Sections) > 0 {
		return 3
	}
	return 2
}

// ruleRead is the rule id that a field path read by a condition (cel.Evaluator.Reads, at readDepth)
// names; false when the path is outside the rules.
func ruleRead(k policy.Kind, p []string) (string, bool) {
	if p[0] != k.RulesField {
		return "", false
	}
	if len(k.Sections) > 0 {
		return p[1] + "." + p[2], true
	}
	return p[1], true
}

// conditionReads lists the rules the when condition expr reads (maybe repeated); false when it may
// read more than named rules.
func conditionReads(k policy.Kind, cond *cel.Evaluator, expr string) ([]string, bool) {
	if k.Fold() == policy.FoldFields {
		return nil, false
	}
	paths, ok := cond.Reads(expr, readDepth(k))
	if !ok {
		return nil, false
	}
	var ids []string
	for _, p := range paths {
		if id, ok := ruleRead(k, p); ok {
			ids = append(ids, id)
		}
	}
	return ids, true
}
