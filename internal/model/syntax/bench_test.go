package syntax

import (
	"testing"

	"github.com/pilotage-dev/pilotage/internal/testsupport/textprog"
)

// BenchmarkTextParse reads a 2,000-statement program (what
// BenchmarkValidateTextVsJSON in workbench/engine validates), to show
// the text surface's own share of a validate.
var benchN = 2000

func BenchmarkTextParse(b *testing.B) {
	src := []byte(textprog.Ledger(benchN))
	syn := For(textLanguage(everyConstruct, ""))
	b.SetBytes(int64(len(src)))
	for range b.N {
		if _, err := syn.Parse(src, 32); err != nil {
			b.Fatal(err)
		}
	}
}
