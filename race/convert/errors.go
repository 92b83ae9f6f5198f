package convert

import "fmt"

// Code classifies why an expression does not convert. The values are
// stable: the planner reports them as fallback reasons.
type Code string

// The codes.
const (
	// CodeExpression: no expr.Op models the function, or the importer kept
	// the expression opaque.
	CodeExpression Code = "unsupported-expression"
	// CodeSubquery: a scalar or dynamic-pruning subquery reference.
	CodeSubquery Code = "unsupported-subquery"
	// CodeDataType: a literal or column of a type the IR cannot carry.
	CodeDataType Code = "unsupported-data-type"
	// CodeShape: the call has the wrong number or kind of arguments.
	CodeShape Code = "unsupported-argument-shape"
	// CodeUnresolved: an attribute that is not in the input schema.
	CodeUnresolved Code = "unresolved-attribute"
)

// Error says why an expression does not convert. Name is the function (or
// construct) at fault, Expr the printed sub-expression.
type Error struct {
	Code Code
	Name string
	Expr string
	Msg  string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s: %s", e.Code, e.Expr, e.Msg)
}

func fail(code Code, name, text, format string, args ...any) *Error {
	return &Error{Code: code, Name: name, Expr: clip(text), Msg: fmt.Sprintf(format, args...)}
}

func clip(s string) string {
	if len(s) > 120 {
		return s[:117] + "..."
	}
	return s
}
