package linediff

import "testing"

func TestFirst(t *testing.T) {
	for _, tc := range []struct {
		name   string
		a, b   []string
		i      int
		x, y   string
		differ bool
	}{
		{name: "both empty"},
		{name: "equal", a: []string{"a", "b"}, b: []string{"a", "b"}},
		{name: "changed line", a: []string{"a", "b", "c"}, b: []string{"a", "B", "c"}, i: 1, x: "b", y: "B", differ: true},
		{name: "a shorter", a: []string{"a"}, b: []string{"a", "b"}, i: 1, y: "b", differ: true},
		{name: "b shorter", a: []string{"a", "b"}, b: []string{"a"}, i: 1, x: "b", differ: true},
		{name: "extra empty line", a: []string{"a"}, b: []string{"a", ""}, i: 1, differ: true},
		{name: "first line", a: []string{"x"}, b: []string{"y"}, x: "x", y: "y", differ: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			i, x, y, differ := First(tc.a, tc.b)
			if i != tc.i || x != tc.x || y != tc.y || differ != tc.differ {
				t.Errorf("First = %d, %q, %q, %v; want %d, %q, %q, %v", i, x, y, differ, tc.i, tc.x, tc.y, tc.differ)
			}
		})
	}
}
