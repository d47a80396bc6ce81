package expr

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLex(t *testing.T) {
	tests := []struct {
		src  string
		want []TokKind
	}{
		{"a.b[2] = :v", []TokKind{TokIdent, TokDot, TokIdent, TokLBracket, TokNumber, TokRBracket, TokEq, TokValue, TokEOF}},
		{"#n <> :v AND size(l) >= :n", []TokKind{TokName, TokNe, TokValue, TokIdent, TokIdent, TokLParen, TokIdent, TokRParen, TokGe, TokValue, TokEOF}},
		{"a<b<=c>d>=e", []TokKind{TokIdent, TokLt, TokIdent, TokLe, TokIdent, TokGt, TokIdent, TokGe, TokIdent, TokEOF}},
		{"SET a = b + :x - :y, c = list_append(c, :l)", []TokKind{TokIdent, TokIdent, TokEq, TokIdent, TokPlus, TokValue, TokMinus, TokValue, TokComma, TokIdent, TokEq, TokIdent, TokLParen, TokIdent, TokComma, TokValue, TokRParen, TokEOF}},
		// A leading underscore and '!' are tokens no rule accepts; a bare
		// sigil is a placeholder the parser rejects.
		{"_a != # :", []TokKind{TokUnderscore, TokIdent, TokBang, TokEq, TokName, TokValue, TokEOF}},
		{" \t\r\n", []TokKind{TokEOF}},
		{"", []TokKind{TokEOF}},
	}
	for _, tc := range tests {
		toks, err := Lex("ConditionExpression", tc.src)
		if err != nil {
			t.Errorf("Lex(%q) = %v", tc.src, err)
			continue
		}
		var got []TokKind
		for _, tok := range toks {
			got = append(got, tok.Kind)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("Lex(%q) kinds (-want +got):\n%s", tc.src, diff)
		}
	}
}

// TestLexError checks DynamoDB's wording of a character that begins no
// token: its 1-based line and column, the character quoted and its code
// point.
func TestLexError(t *testing.T) {
	tests := []struct{ src, want string }{
		{"n = @", `Invalid ConditionExpression: Lexical error at line 1, column 5.  Encountered: "@" (64), after : ""`},
		{"n = :n5 AND\n s @ :s_x", `Invalid ConditionExpression: Lexical error at line 2, column 4.  Encountered: "@" (64), after : ""`},
	}
	for _, tc := range tests {
		_, err := Lex("ConditionExpression", tc.src)
		var e *Error
		if !errors.As(err, &e) || e.Kind != "ConditionExpression" {
			t.Errorf("Lex(%q) = %v, want an *Error of kind ConditionExpression", tc.src, err)
			continue
		}
		if err.Error() != tc.want {
			t.Errorf("Lex(%q) = %q, want %q", tc.src, err.Error(), tc.want)
		}
	}
}

// FuzzLex checks that Lex never panics and that its tokens, when it
// succeeds, cover the input exactly: in order, without overlap, with only
// spaces between them, each token's text its slice of the input, ending
// with one TokEOF at the end of the input.
func FuzzLex(f *testing.F) {
	for _, s := range []string{"a.b[2] = :v", "#n <> :v", "SET a = b + :x", "_a != #", "n = @", "a = é\n@"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		toks, err := Lex("UpdateExpression", src)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || !strings.HasPrefix(e.Reason, "Lexical error at line ") {
				t.Fatalf("Lex(%q) = %v, want a lexical *Error", src, err)
			}
			return
		}
		if len(toks) == 0 || len(toks) > len(src)+1 {
			t.Fatalf("Lex(%q) gave %d tokens", src, len(toks))
		}
		last := toks[len(toks)-1]
		if last.Kind != TokEOF || last.Pos != len(src) || last.End != len(src) {
			t.Fatalf("Lex(%q) ends with %+v, want TokEOF at %d", src, last, len(src))
		}
		at := 0
		for _, tok := range toks[:len(toks)-1] {
			if tok.Kind == TokEOF {
				t.Fatalf("Lex(%q): TokEOF before the end", src)
			}
			if tok.Pos < at || tok.End <= tok.Pos || tok.Text != src[tok.Pos:tok.End] {
				t.Fatalf("Lex(%q): token %+v after offset %d", src, tok, at)
			}
			if gap := src[at:tok.Pos]; strings.Trim(gap, " \t\r\n") != "" {
				t.Fatalf("Lex(%q): %q skipped before %+v", src, gap, tok)
			}
			at = tok.End
		}
		if gap := src[at:]; strings.Trim(gap, " \t\r\n") != "" {
			t.Fatalf("Lex(%q): %q skipped at the end", src, gap)
		}
	})
}

// TestLexFuzzCorpusPresent keeps the checked-in seed corpus from vanishing.
func TestLexFuzzCorpusPresent(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzLex", "*"))
	if len(files) == 0 {
		t.Error("no seed corpus in testdata/fuzz/FuzzLex")
	}
}
