package checks

import (
	"slices"
	"sync"

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
	// Profiles are the profiles whose kinds the check applies to.
	Profiles []policy.ProfileName
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

// AppliesTo reports whether the check applies to the kinds of profile p.
func (c Check) AppliesTo(p policy.ProfileName) bool {
	for _, q := range c.Profiles {
		if q == p {
			return true
		}
	}
	return false
}

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
	return append([]Check(nil), forProfile(k.Profile)...)
}

// byProfile holds each profile's checks, built once: a write's checks are looked up, not filtered.
var byProfile = map[policy.ProfileName][]Check{}

func init() { index() }

// index builds byProfile from the table.
func index() {
	byProfile = map[policy.ProfileName][]Check{}
	for _, c := range table {
		for _, p := range c.Profiles {
			byProfile[p] = append(byProfile[p], c)
		}
	}
}

// Register adds the checks of a model's own package to the table: profile p's kinds also run the
// shared checks named by uses (such as Targets), and own are inserted after the check with ID
// after, so that the table's order (the order checks run and exports list them) stays the one
// table's. The table of profiles calls it when it installs the models (profiles.Install), before
// anything reads the checks; checks already in the table are not added again, so installing twice
// changes nothing.
func Register(p policy.ProfileName, uses []string, after string, own ...Check) {
	registering.Lock()
	defer registering.Unlock()
	own = slices.DeleteFunc(slices.Clone(own), func(c Check) bool {
		_, known := ByID(c.ID)
		return known
	})
	if len(own) == 0 && !slices.ContainsFunc(table, func(c Check) bool { return slices.Contains(uses, c.ID) && !c.AppliesTo(p) }) {
		return // registered before: the table, read without a lock, is left as it is
	}
	for i := range table {
		if slices.Contains(uses, table[i].ID) && !table[i].AppliesTo(p) {
			table[i].Profiles = append(slices.Clip(table[i].Profiles), p)
		}
	}
	at := len(table)
	for i := range table {
		if table[i].ID == after {
			at = i + 1
		}
	}
	table = slices.Insert(table, at, own...)
	index()
}

// registering serializes Register.
var registering sync.Mutex

// forProfile is the shared list of profile p's checks: callers must not modify it.
func forProfile(p policy.ProfileName) []Check { return byProfile[p] }

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
	cs := forProfile(p.Kind.Profile)
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
