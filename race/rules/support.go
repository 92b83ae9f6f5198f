package rules

import (
	"errors"
	"strings"

	"github.com/hados-io/hados/operators/pipeline"
	"github.com/hados-io/hados/race/convert"
)

// Reason is a stable code saying why an operator or expression stays on
// the host. Codes never change meaning; new ones may be added.
type Reason string

// The reason codes.
const (
	// ReasonOperator: the device has no implementation of the operator
	// (Window, Expand, Generate, nested-loop joins, an unknown operator…).
	ReasonOperator Reason = "unsupported-operator"
	// ReasonExpression: an expression has no device implementation.
	ReasonExpression Reason = Reason(pipeline.ReasonExpression)
	// ReasonAggregate: an aggregate function (or its mode) is not supported.
	ReasonAggregate Reason = "unsupported-aggregate"
	// ReasonDataType: a column or literal type the device cannot hold.
	ReasonDataType Reason = Reason(pipeline.ReasonDataType)
	// ReasonShape: the arguments have a shape the kernels do not take
	// (a non-literal LIKE pattern, a non-literal IN list…).
	ReasonShape Reason = Reason(pipeline.ReasonShape)
	// ReasonLimit: the device pipeline would exceed its registers or
	// instructions.
	ReasonLimit Reason = Reason(pipeline.ReasonLimit)
	// ReasonSubquery: a subquery expression the device cannot evaluate.
	ReasonSubquery Reason = Reason(convert.CodeSubquery)
	// ReasonUnresolved: an attribute not found in the child's output (an
	// imperfect import; the host runs what it cannot check).
	ReasonUnresolved Reason = Reason(convert.CodeUnresolved)
	// ReasonConfig: disabled by configuration (spark.hados.enabled,
	// spark.hados.expression.<name>.enabled).
	ReasonConfig Reason = "disabled-by-configuration"
	// ReasonANSI: spark.sql.ansi.enabled is true and the operator computes
	// arithmetic, casts or sums, whose ANSI errors the device does not raise.
	ReasonANSI Reason = "ansi-mode"
	// ReasonWholeQuery: the operator is supported, but another one of the
	// query is not and the all-or-nothing strategy keeps the query on the
	// host.
	ReasonWholeQuery Reason = "query-falls-back"
	// ReasonCost: the cost strategy found moving the data across DMA costs
	// more than the device saves.
	ReasonCost Reason = "not-cost-effective"
)

// Support is a verdict on one operator or expression: OK, or the Reason
// and a human Detail (the construct and why) it stays on the host.
type Support struct {
	OK     bool   `json:"ok"`
	Reason Reason `json:"reason,omitempty"`
	// Subject names what is at fault (the operator, function or type)
	// when known, for counting reasons across queries.
	Subject string `json:"subject,omitempty"`
	Detail  string `json:"detail,omitempty"`
}

// Supported is the OK verdict.
var Supported = Support{OK: true}

// EmptyInput is the OK verdict of a host leaf of no rows (plan.Node's
// EmptyLeaf: an EmptyRelation, an empty LocalTableScan). It stays on the
// host, never counts as offloaded, and does not keep the query there: the
// executor reads it as an empty input of its columns.
var EmptyInput = Support{OK: true, Detail: "no rows: read as an empty input"}

// IsEmptyInput reports a host leaf of no rows the executor reads as an
// empty input (verdict EmptyInput).
func (n *Node) IsEmptyInput() bool {
	return n != nil && n.Kind == KindHost && n.Spark != nil && n.Verdict.OK && n.Spark.EmptyLeaf()
}

// Unsupported returns a negative verdict.
func Unsupported(r Reason, detail string) Support { return Support{Reason: r, Detail: detail} }

// about sets the verdict's Subject.
func (s Support) about(subject string) Support {
	s.Subject = subject
	return s
}

// String prints "ok" or "reason: detail".
func (s Support) String() string {
	if s.OK {
		return "ok"
	}
	if s.Detail == "" {
		return string(s.Reason)
	}
	return string(s.Reason) + ": " + s.Detail
}

// supportOf turns an error of the converter or the pipeline compiler into
// a verdict.
func supportOf(err error) Support {
	var ce *convert.Error
	var pu *pipeline.Unsupported
	switch {
	case err == nil:
		return Supported
	case errors.As(err, &ce):
		return Unsupported(Reason(ce.Code), ce.Expr+": "+ce.Msg).about(ce.Name)
	case errors.As(err, &pu):
		v := Unsupported(Reason(pu.Code), pu.Msg)
		if t, ok := strings.CutPrefix(pu.Msg, "data type "); ok && pu.Code == pipeline.ReasonDataType {
			v.Subject, _, _ = strings.Cut(t, " ")
		}
		return v
	}
	return Unsupported(ReasonExpression, err.Error())
}
