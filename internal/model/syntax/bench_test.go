package syntax

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkTextParse reads a 2,000-statement program (what
// BenchmarkValidateTextVsJSON in workbench/engine validates), to show
// the text surface's own share of a validate.
var benchN = 2000

func BenchmarkTextParse(b *testing.B) {
	var sb strings.Builder
	for i := 0; i < benchN; i += 2 {
		fmt.Fprintf(&sb, "b%d = accounts.balance(account: \"acct%d\")  # read\n", i, i)
		fmt.Fprintf(&sb, "ledger.post(debit: \"payables\", credit: \"acct%d\", amount: b%d.output.amount, memo: \"entry %d\")\n", i, i, i)
	}
	src := []byte(sb.String())
	syn := For(textLanguage(everyConstruct, ""))
	b.SetBytes(int64(len(src)))
	for range b.N {
		if _, err := syn.Parse(src, 32); err != nil {
			b.Fatal(err)
		}
	}
}
