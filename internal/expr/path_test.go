package expr

import (
	"errors"
	"testing"
)

func TestPathString(t *testing.T) {
	p := Path{{Name: "a"}, {Name: "b"}, {Index: 2, IsIndex: true}, {Name: "c"}, {Index: 0, IsIndex: true}}
	if got, want := p.String(), "a.b[2].c[0]"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if got, want := p.ListString(), "[a, b, [2], c, [0]]"; got != want {
		t.Errorf("ListString() = %q, want %q", got, want)
	}
}

func TestRelation(t *testing.T) {
	a := PathElem{Name: "a"}
	b := PathElem{Name: "b"}
	i0 := PathElem{Index: 0, IsIndex: true}
	i1 := PathElem{Index: 1, IsIndex: true}
	tests := []struct {
		p, q Path
		want int
	}{
		{Path{a}, Path{a}, Overlap},
		{Path{a}, Path{a, b}, Overlap},
		{Path{a, b}, Path{a}, Overlap},
		{Path{a, i0, b}, Path{a, i0}, Overlap},
		{Path{a}, Path{b}, Disjoint},
		{Path{a, i0}, Path{a, i1}, Disjoint},
		{Path{a, b}, Path{a, a}, Disjoint},
		{Path{a, b}, Path{a, i0}, Conflict},
		{Path{a, i1, a}, Path{a, i1, i0}, Conflict},
	}
	for _, tc := range tests {
		if got := Relation(tc.p, tc.q); got != tc.want {
			t.Errorf("Relation(%s, %s) = %d, want %d", tc.p, tc.q, got, tc.want)
		}
	}
}

// TestCheckOverlaps checks DynamoDB's wording, which names the first
// offending pair in the order written.
func TestCheckOverlaps(t *testing.T) {
	m, x, y := PathElem{Name: "m"}, PathElem{Name: "a"}, PathElem{Name: "b"}
	i0 := PathElem{Index: 0, IsIndex: true}
	tests := []struct {
		paths []Path
		want  string // "" for no error
	}{
		{[]Path{{m, x}, {m, y}, {x}}, ""},
		{[]Path{{y}, {m}, {m, x}}, "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [m], path two: [m, a]"},
		{[]Path{{m, x}, {m, i0}}, "Invalid ProjectionExpression: Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [m, a], path two: [m, [0]]"},
	}
	for _, tc := range tests {
		err := CheckOverlaps("ProjectionExpression", tc.paths)
		if tc.want == "" {
			if err != nil {
				t.Errorf("CheckOverlaps(%v) = %v, want nil", tc.paths, err)
			}
			continue
		}
		var e *Error
		if !errors.As(err, &e) || err.Error() != tc.want {
			t.Errorf("CheckOverlaps(%v) = %v, want *Error %q", tc.paths, err, tc.want)
		}
	}
}
