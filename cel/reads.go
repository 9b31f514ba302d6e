package cel

import (
	celast "github.com/google/cel-go/common/ast"
)

// Reads returns the field paths below `self` that expr reads, each cut to depth fields (e.g. depth 2:
// self.limits.expensive.rates[0] reads [limits expensive]). ok is false when expr uses self in any
// other way (self alone, a shorter path such as self.limits.size(), an optional selection, a
// comprehension variable named self) or does not compile: then it may read anything. The answer is
// cached per expression and depth; the expression is compiled once, for Eval and Reads alike.
func (e *Evaluator) Reads(expr string, depth int) (paths [][]string, ok bool) {
	key := readsKey{expr, depth}
	e.mu.Lock()
	r, cached := e.reads[key]
	e.mu.Unlock()
	if cached {
		return r.paths, r.ok
	}
	r = reads{}
	if c := e.compiled(expr); c.err == nil {
		r.ok = selfPaths(c.ast.NativeRep().Expr(), depth, &r.paths)
	}
	e.mu.Lock()
	if len(e.reads) >= cacheSize {
		e.reads = map[readsKey]reads{}
	}
	e.reads[key] = r
	e.mu.Unlock()
	return r.paths, r.ok
}

type readsKey struct {
	expr  string
	depth int
}

type reads struct {
	paths [][]string
	ok    bool
}

// selfPaths walks an expression and appends the paths below self it selects; false when self is
// used other than through a selection at least depth deep.
func selfPaths(e celast.Expr, depth int, out *[][]string) bool {
	switch e.Kind() {
	case celast.LiteralKind:
		return true
	case celast.IdentKind:
		return e.AsIdent() != "self"
	case celast.SelectKind:
		return selectPaths(e, depth, out)
	case celast.CallKind:
		return callPaths(e.AsCall(), depth, out)
	case celast.ComprehensionKind:
		c := e.AsComprehension()
		if c.IterVar() == "self" || c.IterVar2() == "self" || c.AccuVar() == "self" {
			return false
		}
		return allPaths([]celast.Expr{c.IterRange(), c.AccuInit(), c.LoopCondition(), c.LoopStep(), c.Result()}, depth, out)
	case celast.ListKind:
		return allPaths(e.AsList().Elements(), depth, out)
	case celast.MapKind:
		return mapPaths(e.AsMap().Entries(), depth, out)
	case celast.StructKind:
		for _, f := range e.AsStruct().Fields() {
			if f.Kind() != celast.StructFieldKind || !selfPaths(f.AsStructField().Value(), depth, out) {
				return false
			}
		}
		return true
	}
	return false
}

// allPaths is selfPaths of each of es.
func allPaths(es []celast.Expr, depth int, out *[][]string) bool {
	for _, x := range es {
		if !selfPaths(x, depth, out) {
			return false
		}
	}
	return true
}

// selectPaths is selfPaths of a selection: a path below self, or a selection on something else.
func selectPaths(e celast.Expr, depth int, out *[][]string) bool {
	var fields []string
	cur := e
	for cur.Kind() == celast.SelectKind {
		s := cur.AsSelect()
		fields = append(fields, s.FieldName())
		cur = s.Operand()
	}
	if cur.Kind() != celast.IdentKind || cur.AsIdent() != "self" {
		return selfPaths(cur, depth, out)
	}
	if len(fields) < depth {
		return false
	}
	path := make([]string, depth)
	for i := range path {
		path[i] = fields[len(fields)-1-i] // fields were collected outermost first
	}
	*out = append(*out, path)
	return true
}

// callPaths is selfPaths of a call: its target and arguments.
func callPaths(c celast.CallExpr, depth int, out *[][]string) bool {
	if c.FunctionName() == "_?._" || c.FunctionName() == "_[?_]" {
		return false // optional selections are not followed
	}
	if c.IsMemberFunction() && !selfPaths(c.Target(), depth, out) {
		return false
	}
	return allPaths(c.Args(), depth, out)
}

// mapPaths is selfPaths of the entries of a map literal.
func mapPaths(entries []celast.EntryExpr, depth int, out *[][]string) bool {
	for _, en := range entries {
		if en.Kind() != celast.MapEntryKind {
			return false
		}
		if !selfPaths(en.AsMapEntry().Key(), depth, out) || !selfPaths(en.AsMapEntry().Value(), depth, out) {
			return false
		}
	}
	return true
}
