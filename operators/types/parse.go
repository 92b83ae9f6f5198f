package types

import (
	"fmt"
	"strconv"
	"strings"
)

// maxTypeLen bounds the input of Parse and ParseStruct.
const maxTypeLen = 1 << 20

// simpleNames maps every accepted spelling of a parameterless type, lower
// case, to its type: Spark's simpleString, its DDL aliases and the Scala
// object names printed in plans (IntegerType, LongType, …).
var simpleNames = map[string]DataType{
	"boolean": BooleanType, "bool": BooleanType, "booleantype": BooleanType,
	"tinyint": ByteType, "byte": ByteType, "bytetype": ByteType,
	"smallint": ShortType, "short": ShortType, "shorttype": ShortType,
	"int": IntType, "integer": IntType, "integertype": IntType,
	"bigint": LongType, "long": LongType, "longtype": LongType,
	"float": FloatType, "real": FloatType, "floattype": FloatType,
	"double": DoubleType, "doubletype": DoubleType,
	"date": DateType, "datetype": DateType,
	"timestamp": TimestampType, "timestamp_ltz": TimestampType, "timestamptype": TimestampType,
	"timestamp_ntz": TimestampNTZType, "timestampntztype": TimestampNTZType,
	"string": StringType, "stringtype": StringType,
	"binary": BinaryType, "binarytype": BinaryType,
	"void": NullType, "null": NullType, "nulltype": NullType,
	// Spark's default decimal, DecimalType.USER_DEFAULT.
	"decimal": DecimalOf(10, 0), "dec": DecimalOf(10, 0), "numeric": DecimalOf(10, 0),
}

// unsupportedPrefixes are Spark type names hados recognises but does not model.
var unsupportedPrefixes = []string{
	"array", "map", "struct", "interval", "calendarinterval", "variant", "object",
	"arraytype", "maptype", "structtype", "yearmonthintervaltype", "daytimeintervaltype",
}

// Parse parses a Spark type name: a simpleString ("int", "decimal(10,0)"),
// a DDL spelling ("integer", "dec(7,2)", "char(10)", "varchar(20)") or a
// Scala object name from a plan ("IntegerType", "DecimalType(12,2)").
// Known but unmodelled types (array<…>, map<…>, struct<…>, intervals) parse
// to Unsupported with their name; anything else is an error.
func Parse(s string) (DataType, error) {
	if len(s) > maxTypeLen {
		return Unknown, fmt.Errorf("types: type name of %d bytes exceeds the limit of %d", len(s), maxTypeLen)
	}
	name := strings.TrimSpace(s)
	lower := strings.ToLower(name)
	if t, ok := simpleNames[lower]; ok {
		return t, nil
	}
	for _, p := range unsupportedPrefixes {
		if strings.HasPrefix(lower, p) {
			return UnsupportedType(name), nil
		}
	}
	head, args, hasArgs, err := splitCall(lower)
	if err != nil {
		return Unknown, fmt.Errorf("types: bad type %q: %w", s, err)
	}
	if hasArgs {
		switch head {
		case "decimal", "dec", "numeric", "decimaltype":
			return parseDecimalArgs(s, args)
		case "char", "varchar", "chartype", "varchartype":
			if len(args) != 1 {
				return Unknown, fmt.Errorf("types: bad type %q: %s takes one length", s, head)
			}
			if n, err := strconv.Atoi(args[0]); err != nil || n < 0 {
				return Unknown, fmt.Errorf("types: bad type %q: length %q is not a non-negative integer", s, args[0])
			}
			return StringType, nil
		}
	}
	return Unknown, fmt.Errorf("types: unknown data type %q", s)
}

// splitCall splits "head(a,b)" into head and trimmed arguments. A name with
// no parenthesis returns hasArgs false.
func splitCall(s string) (head string, args []string, hasArgs bool, err error) {
	i := strings.IndexByte(s, '(')
	if i < 0 {
		return s, nil, false, nil
	}
	if !strings.HasSuffix(s, ")") {
		return "", nil, false, fmt.Errorf("missing closing parenthesis")
	}
	head = strings.TrimSpace(s[:i])
	for _, a := range strings.Split(s[i+1:len(s)-1], ",") {
		args = append(args, strings.TrimSpace(a))
	}
	return head, args, true, nil
}

func parseDecimalArgs(orig string, args []string) (DataType, error) {
	if len(args) < 1 || len(args) > 2 {
		return Unknown, fmt.Errorf("types: bad type %q: decimal takes precision and optional scale", orig)
	}
	p, err := strconv.Atoi(args[0])
	if err != nil {
		return Unknown, fmt.Errorf("types: bad type %q: precision %q is not an integer", orig, args[0])
	}
	sc := 0
	if len(args) == 2 {
		if sc, err = strconv.Atoi(args[1]); err != nil {
			return Unknown, fmt.Errorf("types: bad type %q: scale %q is not an integer", orig, args[1])
		}
	}
	t, err := NewDecimal(p, sc)
	if err != nil {
		return Unknown, fmt.Errorf("types: bad type %q: %w", orig, err)
	}
	return t, nil
}

// ParseStruct parses Spark's struct simpleString, as printed in a scan's
// ReadSchema: "struct<a:int,b:decimal(10,0)>". Field types may be nested
// (array<int>, struct<…>); those become Unsupported. Fields are reported
// nullable, since the string does not say. "struct<>" yields no fields.
func ParseStruct(s string) ([]Field, error) {
	if len(s) > maxTypeLen {
		return nil, fmt.Errorf("types: struct of %d bytes exceeds the limit of %d", len(s), maxTypeLen)
	}
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "struct<") || !strings.HasSuffix(t, ">") {
		return nil, fmt.Errorf("types: %q is not a struct<...> type", clip(s))
	}
	body := t[len("struct<") : len(t)-1]
	parts, err := splitTopLevel(body)
	if err != nil {
		return nil, fmt.Errorf("types: struct %q: %w", clip(s), err)
	}
	var fields []Field
	for i, part := range parts {
		if part == "" && len(parts) == 1 {
			break
		}
		colon := strings.IndexByte(part, ':')
		if colon <= 0 {
			return nil, fmt.Errorf("types: struct %q: field %d %q is not name:type", clip(s), i+1, clip(part))
		}
		name := strings.Trim(strings.TrimSpace(part[:colon]), "`")
		typ, err := Parse(part[colon+1:])
		if err != nil {
			return nil, fmt.Errorf("types: struct %q: field %q: %w", clip(s), name, err)
		}
		fields = append(fields, Field{Name: name, Type: typ, Nullable: true})
	}
	return fields, nil
}

// splitTopLevel splits on commas outside <>, () and [] nesting.
func splitTopLevel(s string) ([]string, error) {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '<', '(', '[':
			depth++
		case '>', ')', ']':
			depth--
			if depth < 0 {
				return nil, fmt.Errorf("unbalanced %q at offset %d", s[i], i)
			}
		case ',':
			if depth == 0 {
				parts = append(parts, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	if depth != 0 {
		return nil, fmt.Errorf("unbalanced brackets")
	}
	return append(parts, strings.TrimSpace(s[start:])), nil
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}
