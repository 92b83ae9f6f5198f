// Package expr is the expression language of hados's operators: typed trees
// over the columns of an input batch, with Spark's semantics (three-valued
// logic, decimal precision and scale, non-ANSI overflow and division
// rules, UTF-8 strings). The RACE layer converts Catalyst expressions into
// it; the pipeline compiler turns it into device programs; and a plain Go
// reference evaluator gives the answers every device kernel is tested
// against.
package expr
