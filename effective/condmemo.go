package effective

import (
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/precedent-dev/precedent/policy"
)

// condMemo remembers the outcome of `when` conditions by what they read. A condition reads the
// effective policy so far; most read a few named rules (cel.Evaluator.Reads tells which), so its
// outcome is a function of the expression and those rules' bodies. Bodies are compared by identity
// (a rule body is an immutable part of one policy object), so the same rule object met on many
// paths, or on the same path before and after a write, is evaluated once. A view's memo reads
// through to its base snapshot's, which lives as long as the snapshot.
type condMemo struct {
	parent *condMemo
	mu     sync.RWMutex
	m      map[string]condResult
}

type condResult struct {
	ok  bool
	err error
	// keep holds the bodies the key names by address, so no address is reused while the entry lives.
	keep []interface{}
}

func newCondMemo(parent *condMemo) *condMemo {
	return &condMemo{parent: parent, m: map[string]condResult{}}
}

func (m *condMemo) load(key string) (condResult, bool) {
	for ; m != nil; m = m.parent {
		m.mu.RLock()
		r, ok := m.m[key]
		m.mu.RUnlock()
		if ok {
			return r, true
		}
	}
	return condResult{}, false
}

func (m *condMemo) store(key string, r condResult) {
	m.mu.Lock()
	m.m[key] = r
	m.mu.Unlock()
}

// condKey is the memo key of evaluating expr on the folder's effective policy: the expression and,
// for each rule it reads, that rule's body by identity (or its absence). ok is false when the
// expression may read more than named rules, or a body has no identity to key by.
func (f *folder) condKey(expr string) (key string, keep []interface{}, ok bool) {
	if f.kind.Profile == policy.ProfileGEP713 {
		return "", nil, false
	}
	depth := 2
	if len(f.kind.Sections) > 0 {
		depth = 3
	}
	paths, ok := f.cond.Reads(expr, depth)
	if !ok {
		return "", nil, false
	}
	var b strings.Builder
	b.WriteString(expr)
	for _, p := range paths {
		if p[0] != f.kind.RulesField {
			continue // the bare form has nothing else: such a read is the same on every policy
		}
		id := strings.Join(p[1:], ".")
		b.WriteString("\x00")
		b.WriteString(id)
		e, found := f.ep[id]
		switch body := e.Body.(type) {
		case nil:
			if found {
				b.WriteString("=null")
			} else {
				b.WriteString("=absent")
			}
		case map[string]interface{}:
			b.WriteString("=map@")
			b.WriteString(strconv.FormatUint(uint64(reflect.ValueOf(body).Pointer()), 16))
			keep = append(keep, body)
		case string:
			b.WriteString("=string:" + strconv.Quote(body))
		case bool, int64, float64:
			b.WriteString("=" + reflect.TypeOf(body).Name() + ":")
			b.WriteString(formatScalar(body))
		default:
			return "", nil, false
		}
	}
	return b.String(), keep, true
}

func formatScalar(v interface{}) string {
	switch x := v.(type) {
	case bool:
		return strconv.FormatBool(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return ""
}
