package syntax

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/model/language"
)

// What completion is told at the '|' of each program (ledger's words,
// langs/ledger): a call's argument names with those given, a label's
// output fields, or nothing inside strings, comments, values and
// non-call brackets.
func TestTextSpotAt(t *testing.T) {
	ts := language.DefaultTextSyntax
	ts.For, ts.In, ts.Output = "each", "of", "report"
	cash := "cash = accounts.balance(account: \"cash\")\n"
	for _, c := range []struct{ src, want string }{
		{"cash = accounts.balance(|", "accounts.balance []"},
		{"cash = accounts.balance(acc|", "accounts.balance []"},
		{"x = ledger.post(debit: \"a\", |", "ledger.post [debit]"},
		{"x = ledger.post(\n  debit: \"a\", # the payer\n  cr|", "ledger.post [debit]"},
		{"x = ledger.post(memo: \"(, \" + f(1), amount: 2, |, debit: g(a, b: 1))", "ledger.post [memo amount debit]"},
		{"x = run prog.settle@1(|", "prog.settle@1 []"},
		{"x = ledger.post(|debit: 1, memo: f(amount: 2))", "ledger.post [debit memo]"},
		{"each i of [1, |", " []"},
		{"x = ledger.post(debit: inv.|", " []"},
		{"x = ledger.post(debit: \"a|", " []"},
		{"# ledger.post(|", " []"},
		{"x = ledger.post(debit: 1)|", " []"},
		{"ledger.post(debit: 1)\n|", " []"},
		{cash + "if cash.output.|", "output of accounts.balance"},
		{cash + "report cash.output.am|", "output of accounts.balance"},
		{"if cash.output.| \n" + cash, "output of accounts.balance"},
		{cash + "report nope.output.|", "output of "},
		{cash + "report cash.output.amount.|", " []"},
		{cash + "report cash.output .|", " []"},
		{"|", " []"},
	} {
		off := strings.Index(c.src, "|")
		src := []byte(strings.Replace(c.src, "|", "", 1))
		s := TextSpotAt(&ts, src, off)
		got := fmt.Sprintf("%s %v", s.Callee, s.Given)
		if s.OutputOf != "" || strings.Contains(c.want, "output of") {
			got = "output of " + s.OutputOf
		}
		if got != c.want {
			t.Errorf("%q: got %q, want %q", c.src, got, c.want)
		}
	}
}

// Deep brackets and unclosed strings end the reading, not the process.
func TestTextSpotHostile(t *testing.T) {
	ts := language.DefaultTextSyntax
	deep := "x = f(" + strings.Repeat("(", 100000)
	if s := TextSpotAt(&ts, []byte(deep), len(deep)); s.Callee != "" {
		t.Errorf("deep: %+v", s)
	}
}

// At any offset of any text, a spot is read without panicking.
func FuzzTextSpotAt(f *testing.F) {
	f.Add("cash = accounts.balance(account: \"c\")\nreport cash.output.", 20)
	f.Add("x = run p@1(a: (1), b: [", 23)
	ts := language.DefaultTextSyntax
	f.Fuzz(func(t *testing.T, src string, off int) {
		if off < 0 || off > len(src) {
			return
		}
		TextSpotAt(&ts, []byte(src), off)
	})
}
