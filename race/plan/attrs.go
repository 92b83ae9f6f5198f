package plan

import (
	"fmt"
	"strconv"
	"strings"
)

// splitList splits the printed list "[a, b(c, d), e]" into its top-level
// items. The surrounding brackets are required.
func splitList(v string) ([]string, error) {
	v = strings.TrimSpace(v)
	if !strings.HasPrefix(v, "[") || !strings.HasSuffix(v, "]") {
		return nil, fmt.Errorf("expected a [bracketed] list, found %q", clip(v))
	}
	return splitTop(v[1:len(v)-1], ",")
}

// splitTop splits s on sep outside (), [] and {} nesting; items are
// trimmed of leading spaces only, since unquoted string literals keep their
// trailing padding. An empty s has no items.
func splitTop(s, sep string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var items []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth < 0 {
				return nil, fmt.Errorf("unbalanced %q at offset %d", s[i], i)
			}
		default:
			// ", [id=#N]" belongs to the scalar subquery printed before it.
			if depth == 0 && strings.HasPrefix(s[i:], sep) && !strings.HasPrefix(s[i:], ", [id=#") {
				items = append(items, strings.TrimLeft(s[start:i], " "))
				start = i + len(sep)
				i += len(sep) - 1
			}
		}
	}
	if depth != 0 {
		return nil, fmt.Errorf("unbalanced brackets in %q", clip(s))
	}
	return append(items, strings.TrimLeft(s[start:], " ")), nil
}

// lastTopLevel returns the offset of the last sep in s outside nesting, or -1.
func lastTopLevel(s, sep string) int {
	depth, last := 0, -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		default:
			if depth == 0 && strings.HasPrefix(s[i:], sep) {
				last = i
			}
		}
	}
	return last
}

// itemAttr returns the attribute an Output/Results item defines: the item
// itself when it is name#id, or the alias target of "expr AS name#id".
func itemAttr(item string) (Attr, bool) {
	if i := lastTopLevel(item, " AS "); i >= 0 {
		item = item[i+4:]
	}
	h := strings.LastIndexByte(item, '#')
	if h <= 0 || h == len(item)-1 || len(item)-h-1 > 18 {
		return Attr{}, false
	}
	id, err := strconv.ParseInt(item[h+1:], 10, 64)
	if err != nil || id < 0 {
		return Attr{}, false
	}
	return Attr{Name: item[:h], ID: id, Nullable: true}, true
}

// parseAttrField reads an attribute list field ("Output [2]: [a#1, b#2]"),
// checking the printed count.
func parseAttrField(f *field) ([]Attr, error) {
	items, err := splitList(f.value)
	if err != nil {
		return nil, err
	}
	if f.count >= 0 && f.count != len(items) {
		return nil, fmt.Errorf("says %d items but lists %d", f.count, len(items))
	}
	attrs := make([]Attr, 0, len(items))
	for _, it := range items {
		a, ok := itemAttr(it)
		if !ok {
			return nil, fmt.Errorf("item %q is not name#id", clip(it))
		}
		attrs = append(attrs, a)
	}
	return attrs, nil
}
