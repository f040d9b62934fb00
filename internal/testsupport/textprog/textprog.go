// Package textprog writes the text programs that the text surface's
// tests and benchmarks in several packages share.
package textprog

import (
	"fmt"
	"strings"
)

// Ledger is a ledger program of n statements: labelled balance reads,
// each followed by a post of the amount read, every string distinct so
// no expression is the same text as another (BenchmarkValidateTextVsJSON's
// program).
func Ledger(n int) string {
	var b strings.Builder
	for i := 0; i < n; i += 2 {
		fmt.Fprintf(&b, "b%d = accounts.balance(account: \"acct%d\")  # read\n", i, i)
		fmt.Fprintf(&b, "ledger.post(debit: \"payables\", credit: \"acct%d\", amount: b%d.output.amount, memo: \"entry %d\")\n", i, i, i)
	}
	return b.String()
}
