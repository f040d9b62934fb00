package expr

import (
	"testing"

	"github.com/google/cel-go/cel"
)

// cel-go's errors reach authors in their words, one syntax error an
// expression (the first; what the parser says after it follows from
// it), with the fix where it is obvious.
func TestPlainIssues(t *testing.T) {
	env, err := NewEnv(lim, []Decl{{Name: "x", Type: cel.IntType}, {Name: "s", Type: cel.StringType}})
	if err != nil {
		t.Fatal(err)
	}
	for src, want := range map[string]struct{ msg, hint string }{
		`'milk`:       {"Syntax error: a string is never closed: 'milk", "end it with the quote it starts with: 'milk'"},
		`"milk`:       {`Syntax error: a string is never closed: "milk`, `end it with the quote it starts with: "milk"`},
		`x +`:         {"Syntax error: the expression ends where a value should follow", "complete it, or remove what it ends with"},
		`(x`:          {"Syntax error: missing ')' at the end", "close what is open: add ')'"},
		`[1, 2`:       {"Syntax error: missing ']' at the end", "close what is open: add ']'"},
		`{'a': 1`:     {"Syntax error: missing '}' at the end", "close what is open: add '}'"},
		`x > 1 ? 1`:   {"Syntax error: missing ':' at the end", "a choice is written cond ? a : b: add ':' and the value when cond is false"},
		`size(s`:      {"Syntax error: missing ')' at the end", "close what is open: add ')'"},
		`x # 1`:       {"Syntax error: unexpected character '#'", ""},
		`x 1`:         {"Syntax error: unexpected '1'; expected the end", ""},
		`s + 1`:       {"'+' does not apply to (string, int)", "CEL converts no type implicitly: convert a side with string(x), int(x) or double(x), or compare values of one type"},
		`x * 1.5`:     {"'*' does not apply to (int, double)", "CEL does not mix int and double in arithmetic (a schema's number is a double, its integer an int): write 2.0 instead of 2, or convert with double(x) or int(x)"},
		`size(x)`:     {"size() does not apply to (int)", "CEL converts no type implicitly: convert a side with string(x), int(x) or double(x), or compare values of one type"},
		`x == 'a'`:    {"'==' does not apply to (int, string)", "CEL converts no type implicitly: convert a side with string(x), int(x) or double(x), or compare values of one type"},
		`undeclared1`: {"undeclared reference to 'undeclared1'", ""},
	} {
		p, issues := env.Parse(src)
		if issues == nil {
			_, issues = env.Check(p)
		}
		if len(issues) != 1 {
			t.Errorf("%s: want one issue, got %+v", src, issues)
			continue
		}
		if got := issues[0]; got.Message != want.msg || got.Hint != want.hint {
			t.Errorf("%s:\n got %q, hint %q\nwant %q, hint %q", src, got.Message, got.Hint, want.msg, want.hint)
		}
	}
}
