package language

import (
	"strings"
	"testing"
)

// Every grammar gets a Scope rules section (§5.2): a snapshot does not show
// the grammar (data-model.md reading 14), so a section present only for
// branches and loops left lint and conform unable to tell its absence from
// an omission. Each says what an expression may read in that grammar, and
// nothing about constructs the grammar does not have.
func TestScopeRules(t *testing.T) {
	tests := []struct {
		name    string
		g       Grammar
		want    []string
		wantNot []string
	}{
		{"branches and loops", Grammar{Call: "call", Branch: "if", Arms: []string{"then", "else"}, Loop: "for_each", Item: "as", Body: "do"},
			[]string{"`steps.<id>.output`", "in every enclosing sequence", "inside a branch arm or a loop body", "After a loop"}, nil},
		{"branches only", Grammar{Call: "call", Branch: "if", Arms: []string{"then", "else"}},
			[]string{"After a branch"}, nil},
		{"calls only", Grammar{Call: "call", Args: "with"},
			[]string{"`steps.<id>.output`", "no branches or loops", "never a later step", "`output` expression can address every step"},
			[]string{"branch arm", "loop body", "enclosing"}},
		{"promoted runs only", Grammar{Run: "run", RunArgs: "with"},
			[]string{"`steps.<id>.output`", "no branches or loops"}, []string{"branch arm"}},
		{"no step constructs", Grammar{Input: true},
			[]string{"no step constructs", "`steps` is always empty"},
			[]string{"`steps.<id>.output`", "branch", "loop"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ScopeRules(&tc.g)
			if tc.g.HasControlFlow() && got != ScopeRulesText {
				t.Errorf("a grammar with control flow gets the fixed text, got:\n%s", got)
			}
			// The rules every Language shares, said in the same words.
			for _, s := range append(tc.want, "Expressions are CEL.", "are addressable everywhere", "CEL does not mix int and double") {
				if !strings.Contains(got, s) {
					t.Errorf("missing %q in:\n%s", s, got)
				}
			}
			for _, s := range tc.wantNot {
				if strings.Contains(got, s) {
					t.Errorf("mentions %q, which the grammar does not have:\n%s", s, got)
				}
			}
		})
	}
}
