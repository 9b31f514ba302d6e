package checks

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/precedent-dev/precedent/cel"
	"github.com/precedent-dev/precedent/internal/policy"
	"github.com/precedent-dev/precedent/internal/settings"
)

// Scope says what a check's Go function looks at once per call.
type Scope int

const (
	// PerPolicy checks run once per policy.
	PerPolicy Scope = iota
	// PerTarget checks run once per target reference; Input.Index is its index in Policy.Targets.
	PerTarget
	// PerBlock checks run once per block (bare rules, spec.defaults, spec.overrides, in that order,
	// those present); Input.Block is the block.
	PerBlock
	// PerUnset checks run once per spec.unset entry; Input.Index is its index in Policy.Unset.
	PerUnset
)

// Reasons of a CEL rule, as metav1.StatusReason spells them.
const (
	ReasonInvalid   = "Invalid"
	ReasonForbidden = "Forbidden"
)

// Input is what a check's Go function reads.
type Input struct {
	Policy   *policy.Policy
	Settings settings.Settings
	// Cond compiles `when` conditions; nil skips the checks that need it.
	Cond *cel.Evaluator
	// Index is the target (PerTarget) or spec.unset entry (PerUnset) being checked.
	Index int
	// Block is the block being checked (PerBlock).
	Block *policy.Block
}

// Rule is one CEL validation: Expression over `object` (and `params`, the PrecedentConfig, when the
// check's Params is set) is true when the object passes. Message is rendered as field.ErrorList
// renders ("spec.unset: Duplicate value: …"), without the index and value at fault, which
// MessageExpression adds.
type Rule struct {
	Expression string
	Reason     string
	Message    string
	// MessageExpression, when set, renders the message with the index and value at fault, exactly
	// as the Go check's error reads; Message is the API server's fallback.
	MessageExpression string
}

// Check is one stateless check.
type Check struct {
	// ID is stable and kebab-case: metrics, settings and exports name the check by it.
	ID string
	// Profiles says whose kinds the check applies to, by the shape of their profile's model.
	Profiles Applies
	// Path is the field path the check reports on ("spec.targetRef.namespace").
	Path string
	// Message says what the check rejects.
	Message string
	Scope   Scope
	// Go is the check. It returns nil when the policy passes.
	Go func(Input) field.ErrorList
	// CEL is the check for kind k as CEL validations, all of which must hold; nil when CEL cannot
	// express it.
	CEL func(k policy.Kind) []Rule
	// Params is set when the CEL reads `params`, the PrecedentConfig named cluster.
	Params bool
}

// Applies says which kinds a check applies to by the shape of their profile's model (the models
// installed from package profiles' table): a profile registered there gets the checks of its
// model's shape with no entry in this package. The mesh, access and envoy-gateway profiles check
// their kinds in their own packages: their models are not the engine's, and no check applies.
type Applies func(Shape) bool

// Shape is what of a model decides which checks apply: whether the engine folds its kinds, and how.
type Shape struct {
	Engine bool
	Fold   policy.Fold
}

// shapeOf is the shape of kind k's model.
func shapeOf(k policy.Kind) Shape {
	m := k.Model()
	return Shape{Engine: m.Engine, Fold: m.Fold}
}

// AppliesTo reports whether the check applies to kind k.
func (c Check) AppliesTo(k policy.Kind) bool { return c.Profiles(shapeOf(k)) }

// All returns every check, in the order they run.
func All() []Check { return append([]Check(nil), table...) }

// ByID returns the check with the given ID.
func ByID(id string) (Check, bool) {
	for _, c := range table {
		if c.ID == id {
			return c, true
		}
	}
	return Check{}, false
}

// For returns the checks of kind k's profile, in the order they run.
func For(k policy.Kind) []Check {
	return append([]Check(nil), forKind(k)...)
}

// byShape holds the checks of each shape of model, built once: a write's checks are looked up,
// not filtered.
var byShape = func() map[Shape][]Check {
	out := map[Shape][]Check{}
	for _, engine := range []bool{false, true} {
		for _, f := range []policy.Fold{policy.FoldRules, policy.FoldFields, policy.FoldKuadrant} {
			sh := Shape{Engine: engine, Fold: f}
			for _, c := range table {
				if c.Profiles(sh) {
					out[sh] = append(out[sh], c)
				}
			}
		}
	}
	return out
}()

// forKind is the shared list of kind k's checks: callers must not modify it.
func forKind(k policy.Kind) []Check { return byShape[shapeOf(k)] }

// Finding is one error of one check.
type Finding struct {
	ID  string
	Err *field.Error
}

// Evaluate runs the checks of in.Policy's kind and returns what they find, in order: consecutive
// checks of one scope run element by element (every check on the first target, then on the
// second, …), so the errors read per target, per block and per unset entry.
func Evaluate(in Input) []Finding {
	p := in.Policy
	cs := forKind(p.Kind)
	var out []Finding
	for start := 0; start < len(cs); {
		end := start + 1
		for end < len(cs) && cs[end].Scope == cs[start].Scope {
			end++
		}
		group := cs[start:end]
		run := func(in Input) {
			for _, c := range group {
				for _, e := range c.Go(in) {
					out = append(out, Finding{ID: c.ID, Err: e})
				}
			}
		}
		switch cs[start].Scope {
		case PerPolicy:
			run(in)
		case PerTarget:
			for i := range p.Targets {
				in.Index = i
				run(in)
			}
		case PerBlock:
			for _, b := range []*policy.Block{p.Bare, p.Defaults, p.Overrides} {
				if b != nil {
					in.Block = b
					run(in)
				}
			}
		case PerUnset:
			for i := range p.Unset {
				in.Index = i
				run(in)
			}
		}
		in.Index, in.Block = 0, nil
		start = end
	}
	return out
}

// Run is Evaluate's errors alone.
func Run(in Input) field.ErrorList {
	var errs field.ErrorList
	for _, f := range Evaluate(in) {
		errs = append(errs, f.Err)
	}
	return errs
}
