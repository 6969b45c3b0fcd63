package rules

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/patcher"
	"github.com/expr-lang/expr/vm"

	"github.com/bankmirror/bankmirror/internal/textsafe"
)

// A `when` is refused at load when its work cannot be bounded, so that
// one evaluation (a rule on a transaction) costs at most a small multiple
// of its length whatever it says and whatever the bank sends:
//
//   - only the functions of allowedBuiltins: none that builds text or lists
//     larger than its input (repeat, replace, join, toJSON, ...), none that
//     carries a value across a loop (reduce), none that reads the clock (a
//     rule decides the same in preview, apply and on arrival);
//   - no {…} inside another {…} (a loop inside a loop);
//   - no let (a variable lets text double at each step);
//   - a range's ends are whole numbers written in the rule, at most
//     MaxRange apart;
//   - at most maxExprNodes nodes.
//
// What is left is evaluated with a memory budget (ranges and lists
// count against it) and a deadline: every loop iteration checks the
// caller's context now and then, and the time one evaluation has taken.

// MaxRange is the largest range a `when` may write (`hour in 9..17`).
const MaxRange = 1000

// EvalLimit is how long one rule may take on one transaction; past it the
// rule stops, fails (ErrTooLong) and counts as not matching.
const EvalLimit = 250 * time.Millisecond

// memoryBudget is expr's memory budget of one evaluation: about the
// number of list elements it may make (a range of MaxRange makes MaxRange).
const memoryBudget = 20 * MaxRange

// guardEvery is how many loop iterations pass between two looks at the
// context and the clock: an iteration costs at most the body's nodes
// times a list's length, so a few of them are a small fraction of
// EvalLimit.
const guardEvery = 16

// guardName is the function the compiler puts at the start of every loop
// body; the file cannot name it.
const guardName = "_guard"

// ErrTooLong says a rule took longer than EvalLimit on a transaction.
var ErrTooLong = fmt.Errorf("took longer than %v on one transaction, stopped", EvalLimit)

// allowedBuiltins are expr's functions a `when` may call.
var allowedBuiltins = []string{
	// loops over a list: the list is bounded (tags, a range, a literal)
	"all", "none", "any", "one", "filter", "map", "count", "sum",
	"find", "findIndex", "findLast", "findLastIndex",
	// text and numbers, each no larger than its input
	"len", "abs", "ceil", "floor", "round", "int", "float", "string",
	"trim", "trimPrefix", "trimSuffix", "upper", "lower",
	"indexOf", "lastIndexOf", "hasPrefix", "hasSuffix",
	"max", "min", "mean", "median", "first", "last", "get", "type",
}

// refusedWhy says why a builtin a `when` calls is refused.
var refusedWhy = map[string]string{
	"reduce":   "its work has no bound",
	"repeat":   "it builds text without bound",
	"replace":  "it builds text without bound",
	"join":     "it builds text without bound",
	"now":      "a rule sees the transaction, not the clock (weekday and hour are its time)",
	"date":     "a rule sees the transaction, not the clock (weekday and hour are its time)",
	"duration": "a rule sees the transaction, not the clock (weekday and hour are its time)",
}

// compileOptions are the options every `when` is compiled with, its date
// functions in zone. No date function is in allowedBuiltins today
// (refusedWhy says why), so the zone changes no accepted rule; it is there
// so that one allowed later reads dates as weekday and hour do, in the
// customer's zone (expr.Timezone, with the zone already loaded).
func compileOptions(zone *time.Location) []expr.Option {
	opts := []expr.Option{expr.Env(env{}), expr.AsBool(), expr.MaxNodes(maxExprNodes), expr.DisableAllBuiltins()}
	for _, b := range allowedBuiltins {
		opts = append(opts, expr.EnableBuiltin(b))
	}
	return append(opts, expr.Patch(patcher.WithTimezone{Location: zone}), expr.Patch(guardPatch{}))
}

// checkBounds refuses what has no bound (the list above) in a parsed
// `when`, saying what and why.
func checkBounds(when string) error {
	tree, err := parser.Parse(when)
	if err != nil {
		return errors.New(textsafe.FirstLine(err.Error()))
	}
	b := &boundsCheck{}
	ast.Walk(&tree.Node, b)
	return b.err()
}

// boundsCheck is the walk of checkBounds; err is the first refusal of a
// name (a function, let), else of a shape (a range, a loop in a loop): the
// walk sees a call's arguments before the call.
type boundsCheck struct{ named, shaped error }

func (b *boundsCheck) err() error {
	if b.named != nil {
		return b.named
	}
	return b.shaped
}

func (b *boundsCheck) fail(format string, args ...any) {
	if b.named == nil {
		b.named = fmt.Errorf(format, args...)
	}
}

func (b *boundsCheck) failShape(format string, args ...any) {
	if b.shaped == nil {
		b.shaped = fmt.Errorf(format, args...)
	}
}

func (b *boundsCheck) Visit(node *ast.Node) {
	switch n := (*node).(type) {
	case *ast.BuiltinNode:
		if !slices.Contains(allowedBuiltins, n.Name) {
			why := refusedWhy[n.Name]
			if why == "" {
				why = "rules allow " + strings.Join(allowedBuiltins, ", ")
			}
			b.fail("%s() is not allowed in a rule: %s", n.Name, why)
		}
	case *ast.IdentifierNode:
		if n.Value == guardName {
			b.fail("unknown name %s", n.Value)
		}
	case *ast.VariableDeclaratorNode:
		b.fail("let is not allowed in a rule: write the condition itself")
	case *ast.PredicateNode:
		inner := &nested{}
		ast.Walk(&n.Node, inner)
		if inner.found {
			b.failShape("a {…} inside another {…} is not allowed in a rule: a loop inside a loop has no bound")
		}
	case *ast.BinaryNode:
		if n.Operator == ".." {
			lo, ok1 := intConst(n.Left)
			hi, ok2 := intConst(n.Right)
			if !ok1 || !ok2 || hi-lo >= MaxRange {
				b.failShape("a range's ends must be whole numbers written in the rule, at most %d apart", MaxRange)
			}
		}
	}
}

// nested finds a loop body inside a loop body.
type nested struct{ found bool }

func (v *nested) Visit(node *ast.Node) {
	if _, ok := (*node).(*ast.PredicateNode); ok {
		v.found = true
	}
}

func intConst(n ast.Node) (int, bool) {
	switch v := n.(type) {
	case *ast.IntegerNode:
		return v.Value, true
	case *ast.UnaryNode:
		if i, ok := intConst(v.Node); ok && v.Operator == "-" {
			return -i, true
		}
	}
	return 0, false
}

// guardPatch puts a call of the guard at the start of every loop body:
// `{body}` becomes `{_guard(); body}`, of the body's type.
type guardPatch struct{}

func (guardPatch) Visit(node *ast.Node) {
	p, ok := (*node).(*ast.PredicateNode)
	if !ok || isGuarded(p.Node) {
		return
	}
	p.Node = &ast.SequenceNode{Nodes: []ast.Node{&ast.CallNode{Callee: &ast.IdentifierNode{Value: guardName}}, p.Node}}
}

func isGuarded(n ast.Node) bool {
	s, ok := n.(*ast.SequenceNode)
	if !ok || len(s.Nodes) != 2 {
		return false
	}
	c, ok := s.Nodes[0].(*ast.CallNode)
	if !ok {
		return false
	}
	id, ok := c.Callee.(*ast.IdentifierNode)
	return ok && id.Value == guardName
}

// env is what a program runs on: the transaction and the guard.
type env struct {
	Transaction
	Guard func() bool `expr:"_guard"`
}

// guard stops an evaluation (by a panic the VM turns into an error) when
// the context ends, its deadline passes or the evaluation has taken
// EvalLimit.
type guard struct {
	ctx      context.Context
	deadline time.Time // the context's, zero when none
	limit    time.Time // this evaluation's
	calls    int
	err      error
}

func (g *guard) reset(ctx context.Context, now time.Time) {
	g.ctx, g.calls, g.err = ctx, 0, nil
	g.deadline, _ = ctx.Deadline()
	g.limit = now.Add(EvalLimit)
}

func (g *guard) check() bool {
	g.calls++
	if g.calls%guardEvery != 1 {
		return true
	}
	now := time.Now()
	switch {
	case g.ctx.Err() != nil:
		g.err = g.ctx.Err()
	case !g.deadline.IsZero() && !now.Before(g.deadline):
		g.err = context.DeadlineExceeded
	case !now.Before(g.limit):
		g.err = ErrTooLong
	default:
		return true
	}
	panic(g.err)
}

// run evaluates prog on e, within g's bounds.
func (g *guard) run(prog *vm.Program, e *env) (bool, error) {
	machine := vm.VM{MemoryBudget: memoryBudget}
	out, err := machine.Run(prog, e)
	if g.err != nil {
		return false, g.err
	}
	if err != nil {
		return false, errors.New(textsafe.FirstLine(err.Error()))
	}
	b, _ := out.(bool)
	return b, nil
}
