package expr

import (
	"slices"
	"strings"
	"testing"
)

// TestReservedWords checks the list against the developer guide's page:
// 573 words in alphabetical order, typos included, compared
// case-insensitively.
func TestReservedWords(t *testing.T) {
	words := strings.Fields(reservedWordList)
	if len(words) != 573 {
		t.Errorf("%d reserved words, the DynamoDB list has 573", len(words))
	}
	if !slices.IsSorted(words) {
		t.Error("reservedWordList is not in alphabetical order")
	}
	for _, w := range words {
		if len(w) > maxReservedWordLen {
			t.Errorf("%s is longer than maxReservedWordLen", w)
		}
	}
	for _, w := range []string{"ABORT", "name", "Status", "size", "ZONE", "flattern", "innter", "loged", "ttl", "DATA"} {
		if !IsReservedWord(w) {
			t.Errorf("IsReservedWord(%q) = false", w)
		}
	}
	for _, w := range []string{"pk", "sk", "id", "title", "price", "abortion", "zones", ""} {
		if IsReservedWord(w) {
			t.Errorf("IsReservedWord(%q) = true", w)
		}
	}
}
