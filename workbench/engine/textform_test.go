package engine

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/internal/model/program"
	"github.com/pilotage-dev/pilotage/internal/model/syntax"
	"github.com/pilotage-dev/pilotage/internal/testsupport/textprog"
	"github.com/pilotage-dev/pilotage/workbench/compile"
)

// ledgerForms compiles langs/ledger as written (syntax text) and without
// its syntax block (the same Language, programs in JSON), where the
// promoted program's body is the JSON its text reads as.
func ledgerForms(t testing.TB) (text, js *language.Server) {
	t.Helper()
	src, err := os.ReadFile("../../langs/ledger/ledger.pdl")
	if err != nil {
		t.Fatal(err)
	}
	build := func(src []byte) *language.Server {
		res := compile.Source("ledger.pdl", src, compile.Options{Dir: "../../langs/ledger"})
		if !res.OK() {
			t.Fatalf("%+v", res.Findings)
		}
		return res.Server
	}
	text = build(src)
	body := regexp.MustCompile(`(?s)(\n  program """\n)(.*?)(\n    """\n)`)
	m := body.FindSubmatch(src)
	if m == nil {
		t.Fatal("langs/ledger has no promoted program body")
	}
	parsed, err := syntax.For(text.Languages[0]).Parse(m[2], 32)
	if err != nil || !pilotage.Valid(parsed.Diagnostics) {
		t.Fatalf("the promoted body does not read: %v %+v", err, parsed.Diagnostics)
	}
	jsonSrc := regexp.MustCompile(`(?s)\n  syntax text \{.*?\n  \}\n`).ReplaceAll(src, nil)
	jsonSrc = body.ReplaceAllLiteral(jsonSrc, []byte("\n  program `"+string(jsonForm(parsed.Program, &text.Languages[0].Grammar))+"`\n"))
	return text, build(jsonSrc)
}

// genProgram writes a random ledger program in the text form: calls of
// every entry, labelled or not, branches, loops, nesting and an output.
func genProgram(r *rand.Rand) string {
	var b strings.Builder
	labels := 0
	var stmts func(depth int, loopVar string)
	stmt := func(depth int, loopVar string) {
		ind := strings.Repeat("  ", depth)
		b.WriteString(ind)
		if r.Intn(3) == 0 {
			labels++
			fmt.Fprintf(&b, "l%d = ", labels)
		}
		amount := "10.5"
		if loopVar != "" {
			amount = loopVar + ".amount"
		}
		switch k := r.Intn(7); {
		case k == 0 && depth < 3:
			fmt.Fprintf(&b, "if input.n > %d {\n", r.Intn(4))
			stmts(depth+1, loopVar)
			b.WriteString(ind + "} else {\n")
			stmts(depth+1, loopVar)
			b.WriteString(ind + "}\n")
		case k == 1 && depth < 3 && loopVar == "":
			b.WriteString("each it of input.items {  # a comment\n")
			stmts(depth+1, "it")
			b.WriteString(ind + "}\n")
		case k == 2:
			fmt.Fprintf(&b, "accounts.balance(account: %q)\n", []string{"cash", "bank"}[r.Intn(2)])
		case k == 3:
			b.WriteString("invoices.open(vendor: input.vendor)\n")
		case k == 4:
			fmt.Fprintf(&b, "ledger.post(debit: \"payables\", credit: \"cash\", amount: %s, memo: \"m\")\n", amount)
		default:
			b.WriteString("invoices.flag(id: \"x\", reason: 'r')\n")
		}
	}
	stmts = func(depth int, loopVar string) {
		for range 1 + r.Intn(3) {
			stmt(depth, loopVar)
		}
	}
	stmts(0, "")
	if r.Intn(2) == 0 {
		b.WriteString("report input.n + 1\n")
	}
	return b.String()
}

// jsonForm writes a parsed program as the step model's JSON in grammar
// g: the program a json-pointer Language with that grammar receives.
func jsonForm(p *program.Program, g *language.Grammar) json.RawMessage {
	var steps func([]*program.Step) []any
	steps = func(ss []*program.Step) []any {
		out := []any{}
		for _, s := range ss {
			m := map[string]any{"id": s.ID}
			switch s.Kind {
			case program.Call:
				args := map[string]any{}
				for _, a := range s.Args {
					args[a.Name] = a.Expr.Src
				}
				m[g.Call], m[g.Args] = s.Target, args
			case program.Branch:
				m[g.Branch], m[g.Arms[0]], m[g.Arms[1]] = s.Cond.Src, steps(s.Arms[0]), steps(s.Arms[1])
			case program.Loop:
				m[g.Loop], m[g.Item], m[g.Body] = s.List.Src, s.Item, steps(s.Body)
			}
			out = append(out, m)
		}
		return out
	}
	prog := map[string]any{"steps": steps(p.Steps)}
	if p.Output != nil {
		prog["output"] = p.Output.Src
	}
	raw, _ := json.Marshal(prog)
	return raw
}

// runFacts is a Run without what differs between two Runs of one
// program: its id and the timings.
func runFacts(t *testing.T, resp *pilotage.ExecuteResponse) string {
	raw, _ := json.Marshal(resp)
	return regexp.MustCompile(`"run_id":"[^"]*"|"(t_ms|elapsed_ms)":[0-9.e+-]+`).ReplaceAllString(string(raw), "")
}

// TestTextFormEqualsJSONForm is the property that the text surface is only
// a notation: 150 random ledger programs, validated and executed as text
// and, in the same Language without its syntax block, as the JSON the
// text reads as, give the same plan and the same trace, step ids
// (generated ones included) and arms and iterations alike.
func TestTextFormEqualsJSONForm(t *testing.T) {
	textSrv, jsonSrv := ledgerForms(t)
	te, je := newEngine(t, textSrv, t.TempDir()), newEngine(t, jsonSrv, t.TempDir())
	syn := syntax.For(textSrv.Languages[0])
	c := callerOf("bookkeeper", "s")
	input := json.RawMessage(`{"vendor": "acme", "n": 2, "items": [{"amount": 400.0}, {"amount": 950.0}]}`)
	r := rand.New(rand.NewSource(15))
	n := 150
	if testing.Short() {
		n = 30
	}
	for i := range n {
		text := genProgram(r)
		parsed, err := syn.Parse([]byte(text), 32)
		if err != nil || !pilotage.Valid(parsed.Diagnostics) {
			t.Fatalf("program %d does not read: %v %+v\n%s", i, err, parsed.Diagnostics, text)
		}
		textWire, _ := syntax.Wire(pilotage.LocatorTextRange, []byte(text))
		jsonWire := jsonForm(parsed.Program, &jsonSrv.Languages[0].Grammar)
		vt, err1 := te.Validate(bg, c, "ledger/v1", pilotage.ValidateRequest{Program: textWire})
		vj, err2 := je.Validate(bg, c, "ledger/v1", pilotage.ValidateRequest{Program: jsonWire})
		if err1 != nil || err2 != nil || !vt.Valid || !vj.Valid {
			t.Fatalf("program %d: %v %v %+v %+v\n%s\n%s", i, err1, err2, vt, vj, text, jsonWire)
		}
		pt, _ := json.Marshal(vt.Plan)
		pj, _ := json.Marshal(vj.Plan)
		if string(pt) != string(pj) {
			t.Fatalf("program %d: plans differ\ntext %s\njson %s\n%s", i, pt, pj, text)
		}
		rt := exec(t, te, "bookkeeper", "s", "ledger/v1", pilotage.ExecuteRequest{Program: textWire, Input: input})
		rj := exec(t, je, "bookkeeper", "s", "ledger/v1", pilotage.ExecuteRequest{Program: jsonWire, Input: input})
		if ft, fj := runFacts(t, rt), runFacts(t, rj); ft != fj {
			t.Fatalf("program %d: Runs differ\ntext %s\njson %s\n%s", i, ft, fj, text)
		}
	}
}

// BenchmarkValidateTextVsJSON validates a 2,000-statement program as
// text and, in the same run, the same program in JSON form (the JSON the
// text reads as, in the ledger without its syntax block), alternating,
// and reports text/json wall time as "ratio" (target: at most 1.5).
func BenchmarkValidateTextVsJSON(b *testing.B) {
	textSrv, jsonSrv := ledgerForms(b)
	te, je := newEngine(b, textSrv, b.TempDir()), newEngine(b, jsonSrv, b.TempDir())
	text := textprog.Ledger(2000)
	parsed, err := syntax.For(textSrv.Languages[0]).Parse([]byte(text), 32)
	if err != nil || !pilotage.Valid(parsed.Diagnostics) {
		b.Fatal(err, parsed.Diagnostics)
	}
	textWire, _ := syntax.Wire(pilotage.LocatorTextRange, []byte(text))
	jsonWire := jsonForm(parsed.Program, &jsonSrv.Languages[0].Grammar)
	c := callerOf("bookkeeper", "s")
	validate := func(e *Engine, prog json.RawMessage) time.Duration {
		t0 := time.Now()
		v, err := e.Validate(bg, c, "ledger/v1", pilotage.ValidateRequest{Program: prog})
		if err != nil || !v.Valid {
			b.Fatal(err, v)
		}
		return time.Since(t0)
	}
	validate(te, textWire) // warm both caches alike
	validate(je, jsonWire)
	var dt, dj time.Duration
	b.ResetTimer()
	for range b.N {
		dt += validate(te, textWire)
		dj += validate(je, jsonWire)
	}
	b.ReportMetric(float64(dt.Microseconds())/1000/float64(b.N), "text-ms/op")
	b.ReportMetric(float64(dj.Microseconds())/1000/float64(b.N), "json-ms/op")
	b.ReportMetric(float64(dt)/float64(dj), "ratio")
}

// A program sent to a text Language as a JSON value rather than the
// string binding.md asks for is read as text all the same, and its
// syntax error says how the program travels (review 1, #12); the same
// JSON sent as a string gets the text surface's own hint.
func TestTextProgramSentAsValue(t *testing.T) {
	textSrv, _ := ledgerForms(t)
	e := newEngine(t, textSrv, t.TempDir())
	c := callerOf("bookkeeper", "s")
	obj := json.RawMessage(`{"steps": [{"id": "a", "call": "ledger.post"}]}`)
	str, _ := json.Marshal(string(obj))
	for _, x := range []struct {
		program json.RawMessage
		hint    string
	}{
		{obj, `a text-range Language takes "program" as a JSON string holding the program's text (binding.md); this one was sent as a JSON object`},
		{str, "this Language reads programs as text, not as JSON: "},
	} {
		resp, err := e.Validate(bg, c, "ledger/v1", pilotage.ValidateRequest{Program: x.program})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Valid || len(resp.Diagnostics) != 1 || !strings.HasPrefix(resp.Diagnostics[0].Hint, x.hint) {
			t.Errorf("program %s: %+v, want one syntax diagnostic with hint %q", x.program, resp.Diagnostics, x.hint)
		}
	}
}
