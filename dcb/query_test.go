package dcb

import (
	"testing"

	"github.com/apple/foundationdb/bindings/go/src/fdb/tuple"
	"github.com/google/go-cmp/cmp"
)

// Each query item is one range per (item, type), straight from the
// layout in keys.go: a tags-only item is one range of untyped tag-subset
// entries, never a scan of the tag's entries of every type.
func TestPlan(t *testing.T) {
	k := newKeys(nil)
	tests := []struct {
		name string
		q    Query
		want []tuple.Tuple // range prefixes, each followed by the positions
	}{
		{"all", All(), []tuple.Tuple{{"e"}}},
		{"types only", Items(QueryItem{Types: []string{"B", "A"}}), []tuple.Tuple{{"t", "A"}, {"t", "B"}}},
		{"tags only, sorted", Items(QueryItem{Tags: []string{"y", "x", "y"}}), []tuple.Tuple{{"g", "x", "y", int64(1)}}},
		{"types and tags", Items(QueryItem{Types: []string{"A", "B"}, Tags: []string{"x"}}), []tuple.Tuple{{"g", "x", int64(0), "A"}, {"g", "x", int64(0), "B"}}},
		{"items merged, duplicates once", Items(QueryItem{Types: []string{"A"}}, QueryItem{Types: []string{"A"}}, QueryItem{Tags: []string{"x"}}),
			[]tuple.Tuple{{"g", "x", int64(1)}, {"t", "A"}}},
		{"a tag spelled like a mark", Items(QueryItem{Tags: []string{"_e"}}), []tuple.Tuple{{"g", "_e", int64(1)}}},
		{"more tags than an event can have", Items(QueryItem{Tags: []string{"1", "2", "3", "4", "5", "6", "7", "8", "9"}}), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pl, err := k.plan(tc.q)
			if err != nil {
				t.Fatal(err)
			}
			var got []tuple.Tuple
			for _, p := range pl.prefixes {
				tp, err := tuple.Unpack(p)
				if err != nil {
					t.Fatalf("prefix %x: %v", p, err)
				}
				got = append(got, tp)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("plan mismatch (-want +got):\n%s", diff)
			}
			if pl.values != tc.q.IsAll() {
				t.Errorf("plan reads values %v, want %v", pl.values, tc.q.IsAll())
			}
		})
	}
}
