package manifest

import "sync"

// interner hands out one copy of each string the decoded objects repeat: the keys ("apiVersion",
// "metadata", "name", ...) and the values many objects share (an apiVersion, a kind, a namespace, a
// group), the values already boxed as interface{}. The YAML parser allocates every scalar again,
// and a value put in a map[string]interface{} is boxed once more: over a large input, the same few
// strings held that way were an eighth of the decoded objects' memory and half of what they
// allocated. The decoded objects are the same either way; strings are immutable, so sharing them
// changes nothing a reader can see.
type interner struct {
	seen map[string]interface{}
}

// Bounds of what an interner keeps: names are unique to their object and are not worth a table
// entry each, so the table stops growing once full (what repeats across a file shows up in its
// first objects), and a long string is rarely shared.
const (
	maxInterned    = 4096
	maxInternedLen = 256
)

// interners are the interners of the documents decoded at once (one per decoding goroutine in
// practice): a table shared between goroutines would need a lock on every scalar.
var interners = sync.Pool{New: func() any { return &interner{seen: make(map[string]interface{}, 256)} }}

// value is s boxed, the table's copy when it holds one.
func (t *interner) value(s string) interface{} {
	if v, ok := t.seen[s]; ok {
		return v
	}
	var v interface{} = s
	if len(t.seen) < maxInterned && len(s) <= maxInternedLen {
		t.seen[s] = v
	}
	return v
}

// key is s, the table's copy when it holds one.
func (t *interner) key(s string) string {
	return t.value(s).(string)
}
