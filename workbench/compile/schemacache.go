package compile

import (
	"github.com/pilotage-dev/pilotage/internal/base/lru"
	"github.com/pilotage-dev/pilotage/internal/model/expr"
)

// compiled holds what compileText made of each schema text, by the text,
// for the process: a compile meets each text once, but the language
// server compiles the whole Language again on every edit, and tests
// compile the same Languages many times. What is kept is the sorted
// schema or the words of why it does not compile, never the compiled
// schema, so an entry weighs its text and those bytes; the most recently
// used are kept within compiledBudget.
var compiled = lru.New[schemaResult](compiledBudget, 0)

// compiledBudget bounds the texts and results compiled keeps: all of
// homeflow's schemas take some kilobytes, so a Language's distinct
// schemas fit many times over, while a hostile catalog of large distinct
// schemas leaves at most this much behind beside what its compile holds.
const compiledBudget = 4 << 20

// ResetCaches drops every cached compiled schema text and everything
// expr.ResetCaches drops. Results do not change, only their cost: a
// benchmark calls it to measure what a fresh process (one pilotage build)
// pays.
func ResetCaches() {
	compiled.Reset()
	expr.ResetCaches()
}
