package plan

import (
	"errors"
	"fmt"
)

// ErrSyntax is wrapped by every error reporting malformed input.
var ErrSyntax = errors.New("plan: syntax error")

// ParseError reports malformed input: the source name, the 1-based line
// (0 when not line-oriented, as in JSON), the construct being read and
// what was wrong.
type ParseError struct {
	Name      string
	Line      int
	Construct string
	Msg       string
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s: %s", e.Name, e.Line, e.Construct, e.Msg)
	}
	return fmt.Sprintf("%s: %s: %s", e.Name, e.Construct, e.Msg)
}

// Unwrap makes errors.Is(err, ErrSyntax) hold.
func (e *ParseError) Unwrap() error { return ErrSyntax }

func clip(s string) string {
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}
