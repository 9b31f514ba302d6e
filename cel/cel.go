package cel

import (
	"fmt"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/types"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apiserver/pkg/cel/environment"
)

// DefaultCostLimit is the per-evaluation cost limit, the same as the API server's per-call limit
// for CRD validation rules.
const DefaultCostLimit uint64 = 1_000_000

// maxElements is the size assumed for any list or map in `self` when estimating cost at compile time:
// a policy with more rules than this in one block is not realistic, and the runtime limit still holds.
const maxElements = 100

// cacheSize bounds the number of compiled programs kept.
const cacheSize = 4096

// Evaluator compiles and evaluates conditions. It is safe for concurrent use.
type Evaluator struct {
	env       *cel.Env
	costLimit uint64

	mu    sync.Mutex
	cache map[string]*compiled
	reads map[readsKey]reads // Reads' answers
}

type compiled struct {
	prg cel.Program
	ast *cel.Ast // the checked expression, nil when it does not compile
	err error
}

// CompileError is a condition that does not compile, is not boolean or is too expensive.
type CompileError struct{ Msg string }

func (e *CompileError) Error() string { return e.Msg }

var baseEnvOnce = sync.OnceValues(func() (*cel.Env, error) {
	// The apiserver's base environment at the 1.37 compatibility version: the same libraries
	// (strings, lists, regex, urls, quantity, ip, cidr, format, semver, ...) as CRD validation rules.
	set, err := environment.MustBaseEnvSet(version.MajorMinor(1, 37)).Extend(environment.VersionedOptions{
		IntroducedVersion: version.MajorMinor(1, 0),
		EnvOptions:        []cel.EnvOption{cel.Variable("self", cel.DynType)},
	})
	if err != nil {
		return nil, err
	}
	return set.NewExpressionsEnv(), nil
})

// New returns an evaluator with the given cost limit (0 means DefaultCostLimit).
func New(costLimit uint64) (*Evaluator, error) {
	if costLimit == 0 {
		costLimit = DefaultCostLimit
	}
	env, err := baseEnvOnce()
	if err != nil {
		return nil, fmt.Errorf("building the CEL environment: %w", err)
	}
	return &Evaluator{env: env, costLimit: costLimit, cache: map[string]*compiled{}, reads: map[readsKey]reads{}}, nil
}

// CostLimit returns the evaluator's cost limit.
func (e *Evaluator) CostLimit() uint64 { return e.costLimit }

// Compile checks an expression: it must compile, be boolean and fit the cost limit.
func (e *Evaluator) Compile(expr string) error {
	_, err := e.program(expr)
	return err
}

func (e *Evaluator) program(expr string) (cel.Program, error) {
	c := e.compiled(expr)
	return c.prg, c.err
}

// compiled returns the compiled form of expr, from the cache or compiled now.
func (e *Evaluator) compiled(expr string) *compiled {
	e.mu.Lock()
	c, ok := e.cache[expr]
	e.mu.Unlock()
	if ok {
		return c
	}
	c = e.compile(expr)
	e.mu.Lock()
	if len(e.cache) >= cacheSize {
		e.cache = map[string]*compiled{}
	}
	e.cache[expr] = c
	e.mu.Unlock()
	return c
}

func (e *Evaluator) compile(expr string) *compiled {
	ast, iss := e.env.Compile(expr)
	if iss.Err() != nil {
		return &compiled{err: &CompileError{Msg: fmt.Sprintf("compilation failed: %v", iss.Err())}}
	}
	if t := ast.OutputType(); t != cel.BoolType && t != cel.DynType {
		return &compiled{ast: ast, err: &CompileError{Msg: fmt.Sprintf("must evaluate to a boolean, not %s", t)}}
	}
	est, err := e.env.EstimateCost(ast, sizeEstimator{})
	if err != nil {
		return &compiled{ast: ast, err: &CompileError{Msg: fmt.Sprintf("estimating cost: %v", err)}}
	}
	if est.Max > e.costLimit {
		return &compiled{ast: ast, err: &CompileError{Msg: fmt.Sprintf("estimated cost %d exceeds the limit %d: simplify the expression", est.Max, e.costLimit)}}
	}
	prg, err := e.env.Program(ast, cel.CostLimit(e.costLimit), cel.InterruptCheckFrequency(100))
	if err != nil {
		return &compiled{ast: ast, err: &CompileError{Msg: fmt.Sprintf("building program: %v", err)}}
	}
	return &compiled{prg: prg, ast: ast}
}

// Eval evaluates expr with `self` bound to the given value (a JSON-shaped map). A compile error is
// returned as *CompileError; a runtime error (missing field, cost exceeded, non-boolean result) is
// returned as a plain error and means "the block does not apply".
func (e *Evaluator) Eval(expr string, self map[string]interface{}) (bool, error) {
	prg, err := e.program(expr)
	if err != nil {
		return false, err
	}
	out, _, err := prg.Eval(map[string]interface{}{"self": self})
	if err != nil {
		return false, fmt.Errorf("evaluating %q: %w", expr, err)
	}
	b, ok := out.(types.Bool)
	if !ok {
		return false, fmt.Errorf("evaluating %q: result is %s, not a boolean", expr, out.Type())
	}
	return bool(b), nil
}

// sizeEstimator bounds every list, map and string in `self` for compile-time cost estimation.
type sizeEstimator struct{}

func (sizeEstimator) EstimateSize(element checker.AstNode) *checker.SizeEstimate {
	return &checker.SizeEstimate{Min: 0, Max: maxElements}
}

func (sizeEstimator) EstimateCallCost(function, overloadID string, target *checker.AstNode, args []checker.AstNode) *checker.CallEstimate {
	return nil
}
