package compile

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/closedsets"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/workbench/pdl"
)

func compileExample(t *testing.T, name string) (*language.Server, string) {
	t.Helper()
	path := "../../langs/" + name + "/" + name + ".pdl"
	res, _, err := Load(path, report.DefaultMaxPerRule)
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK() {
		t.Fatalf("%s: %+v", name, res.Findings)
	}
	src, _ := os.ReadFile(path)
	return res.Server, string(src)
}

// lineOf is the 1-based line of the first line of src starting with
// prefix (after indentation).
func lineOf(t *testing.T, src, prefix string) int {
	t.Helper()
	for i, l := range strings.Split(src, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), prefix) {
			return i + 1
		}
	}
	t.Fatalf("no line %q", prefix)
	return 0
}

// TestHomeflowModel checks what the compiler makes of the homeflow
// example: settings, grammar, limits, behaviour, principals, sets with
// reserved values first, the generated guide, and positions.
func TestHomeflowModel(t *testing.T) {
	srv, src := compileExample(t, "homeflow")
	if srv.Name != "homeflow-demo" || srv.Version != "1.0.0" || len(srv.Languages) != 1 {
		t.Fatalf("server %q %q, %d languages", srv.Name, srv.Version, len(srv.Languages))
	}
	l := srv.Languages[0]
	if l.ExecutionMode != "immediate" || l.TraceLevel != "full" || l.Retention != "P7D" ||
		l.TraceSubprogram != "expanded" || l.PromotionAuthority != "caller" || l.Locator != pilotage.LocatorJSONPointer {
		t.Errorf("settings %+v", l)
	}
	if !l.Capabilities.HasSub(pilotage.CapCatalog, pilotage.SubChangedSince) || !l.Capabilities.HasSub(pilotage.CapExecute, pilotage.SubIdempotency) {
		t.Errorf("capabilities %v", l.Capabilities)
	}
	want := language.Limits{Steps: 10000, Time: 5 * time.Second, Depth: 16, Iterations: 500, Expansion: 4, MemoryBytes: 8 << 20, ProgramBytes: 256 << 10}
	if l.Limits != want {
		t.Errorf("limits %+v, want %+v", l.Limits, want)
	}
	g := l.Grammar
	if g.Call != "call" || g.Args != "with" || g.Branch != "if" || strings.Join(g.Arms, ",") != "then,else" ||
		g.Loop != "for_each" || g.Item != "as" || g.Body != "do" || g.Run != "run" || !g.Input || g.Expressions != "cel" {
		t.Errorf("grammar %+v", g)
	}
	byID := map[string]*language.Entry{}
	for _, e := range srv.Catalog {
		byID[e.ID] = e
	}
	sr := byID["sensors.read"]
	if sr == nil || sr.Risk != "safe" || sr.RiskHints != (pilotage.RiskHints{ReadOnly: true}) ||
		!strings.Contains(sr.Behavior.ReturnsExpr, `input.room == "attic"`) || sr.Behavior.Latency != 20*time.Millisecond ||
		len(sr.Behavior.Fails) != 1 || sr.Behavior.Fails[0].Status != "unreachable" || sr.Behavior.Fails[0].When != `input.room == "garage"` {
		t.Errorf("sensors.read %+v", sr)
	}
	if fs := byID["fan.set"]; string(fs.Behavior.Returns) != `{"on":true}` {
		t.Errorf("fan.set returns %s", fs.Behavior.Returns)
	}
	if p := byID["prog.nightly@1"]; p == nil || !strings.Contains(string(p.Program), `"for_each":"input.rooms"`) {
		t.Errorf("promoted program body: %+v", p)
	}
	if len(srv.Principals) != 2 || strings.Join(srv.Principals[1].Sees, " ") != "sensors.* lights.*" || srv.Principals[1].Token != "guest-token" {
		t.Errorf("principals %+v", srv.Principals)
	}

	var run, step, codes []string
	for _, s := range l.Sets.RunStatuses {
		run = append(run, s.Status)
	}
	for _, s := range l.Sets.StepStatuses {
		step = append(step, s.Status)
	}
	for _, c := range l.Sets.DiagnosticCodes[:5] {
		codes = append(codes, c.Code)
	}
	if strings.Join(run, " ") != "success partial validation_error catalog_drift promotion_drift timeout" ||
		strings.Join(step, " ") != "success partial failed unreachable" || strings.Join(codes, " ") != strings.Join(pilotage.ReservedCodes, " ") {
		t.Errorf("sets: run %v step %v codes %v", run, step, codes)
	}
	if !strings.HasSuffix(l.Sets.ScopeRules, "A room name is a plain string; it is never looked up as a step.") ||
		!strings.HasPrefix(l.Sets.ScopeRules, language.ScopeRulesText) {
		t.Errorf("scope rules do not extend the fixed text: %q", l.Sets.ScopeRules)
	}

	cs := l.Guides[len(l.Guides)-1]
	sum := sha256.Sum256([]byte(cs.Body))
	if !cs.Generated || cs.ID != "closed-sets" || cs.Body != closedsets.Render(ClosedSetsTitle, &l.Sets) ||
		cs.Version != hex.EncodeToString(sum[:6]) || cs.SizeBytes != len(cs.Body) {
		t.Errorf("closed-sets guide %+v", cs.Guide)
	}

	// The Language keeps an item's place; its members' are read again
	// from the file (pdllint.Locator sets this).
	l.ItemSpotsAt = func(item language.Spot) language.ItemSpots { return ItemSpotsAt([]byte(src), item) }
	for ptr, prefix := range map[string]string{
		"/manifest/languages/0":                                  `language "homeflow/v1"`,
		"/manifest/languages/0/execution_mode":                   "mode immediate",
		"/manifest/languages/0/capabilities/catalog/search":      "catalog search",
		"/guides/homeflow~1v1/1":                                 `guide devices`,
		"/guides/homeflow~1v1/0/body":                            `guide core`,
		"/guides/homeflow~1v1/0/description":                     `description "The step model`,
		"/guides/homeflow~1v1/1/topics":                          `topics lights sensors`,
		"/guides/homeflow~1v1/2/body":                            `body """`,
		"/guides/homeflow~1v1/2/level":                           `guide morning`,
		"/catalog/homeflow~1v1/items/1":                          `entry "lights.set"`,
		"/catalog/homeflow~1v1/items/0/input_schema":             `input_schema file="schemas/room.json"`,
		"/manifest/languages/0/capabilities/trace_fetch":         "trace_fetch narrate",
		"/catalog/homeflow~1v1/items/4/risk":                     `entry "prog.nightly@1"`,
		"/manifest/languages/0/capabilities/execute/idempotency": "execute idempotency",
	} {
		p, ok := l.Position(ptr)
		if !ok {
			t.Errorf("no position for %s", ptr)
			continue
		}
		if want := lineOf(t, src, prefix); p.Line != want || !strings.HasSuffix(p.File, "homeflow.pdl") {
			t.Errorf("%s at %s:%d, want line %d (%s)", ptr, p.File, p.Line, want, prefix)
		}
	}
	// Guides are recorded by index as items are (GuideSpots): the
	// closed-sets guide, generated, and members not written are not.
	for _, ptr := range []string{"/guides/homeflow~1v1/3", "/guides/homeflow~1v1/1/description", "/guides/homeflow~1v1/0/title", "/guides/homeflow~1v1/01", "/guides/homeflow~1v1/-1"} {
		if p, ok := l.Position(ptr); ok {
			t.Errorf("%s recorded at %+v", ptr, p)
		}
	}
	if p := srv.Positions["/manifest/server"]; p.Line != lineOf(t, src, "server ") {
		t.Errorf("server position %+v", p)
	}
}

// TestDeployModel: Server-level capabilities, a Language that turns one
// off, and the settings a deploy Language needs.
func TestDeployModel(t *testing.T) {
	srv, _ := compileExample(t, "deploy")
	l := srv.Languages[0]
	eff := pilotage.Effective(srv.Capabilities, l.Capabilities)
	if !srv.Capabilities.Has(pilotage.CapPlan) || eff.Has(pilotage.CapPlan) || !eff.HasSub(pilotage.CapExecute, pilotage.SubTestRun) {
		t.Errorf("server %v, effective %v", srv.Capabilities, eff)
	}
	if l.ExecutionMode != "deploy" || l.TraceLevel != "summary" || l.Retention != "PT1H" || l.PromotionAuthority != "promoter" || len(l.ContextSchema) == 0 {
		t.Errorf("settings %+v", l)
	}
	if g := l.Grammar; g.Call != "do" || g.Branch != "when" || g.Loop != "each" || g.Run != "use" || g.Body != "steps" {
		t.Errorf("grammar %+v", g)
	}
}

// TestCalcModel: a pure Language has no catalog, no kinds or risk levels
// in its sets, and only the constructs its grammar lists.
func TestCalcModel(t *testing.T) {
	srv, _ := compileExample(t, "calc")
	l := srv.Languages[0]
	if len(l.Sets.Kinds) != 0 || len(l.Sets.RiskLevels) != 0 || l.Sets.ScopeRules != language.ScopeRules(&l.Grammar) || l.Sets.ParameterBinding == "" {
		t.Errorf("sets %+v", l.Sets)
	}
	if l.Grammar.HasControlFlow() || l.Grammar.Call != "" || !l.Grammar.Input {
		t.Errorf("grammar %+v", l.Grammar)
	}
	if l.Limits.Time != time.Second || l.Limits.Steps != language.DefaultLimits.Steps {
		t.Errorf("limits %+v", l.Limits)
	}
}

// TestHostileSizes: inputs built to make checks quadratic stay fast and
// end in a finding: a catalog product over the limit, many duplicate
// entries, many principals with patterns.
func TestHostileSizes(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles huge PDL files; run without -short")
	}
	var many strings.Builder
	many.WriteString("risk r readOnly \"r\"\nkind k callable \"k\"\n")
	for i := 0; i < 1100; i++ {
		fmt.Fprintf(&many, "language \"l%d/v1\" {\n  capabilities {\n    guides\n    validate\n    catalog\n  }\n  guide core \"C\" level=core {\n    body \"# C\"\n  }\n}\n", i)
	}
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&many, "entry \"e%d\" kind=k risk=r\n", i)
	}
	var dups strings.Builder
	dups.WriteString("risk r readOnly \"r\"\nkind k callable \"k\"\nlanguage \"a/v1\" {\n  capabilities {\n    guides\n    validate\n    catalog\n  }\n  guide core \"C\" level=core {\n    body \"# C\"\n  }\n}\n")
	// Each entry is padded with a comment to the 144 bytes the parser's
	// budget asks of an entry on average (pdl, keptCost): the verbs hold
	// about 1,000 to 1,250 bytes of each at their peaks.
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&dups, "entry \"e%d\" kind=k risk=r  # %s\n", i%10000, strings.Repeat("-", 118))
	}
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&dups, "principal p%d token=\"t%d\" {\n  sees \"e*\" \"nothing%d\"\n}\n", i, i, i)
	}
	for name, tc := range map[string]struct {
		src  string
		want string
	}{
		"catalog-product": {many.String(), "the catalogs would list 1100000 items in all; the limit is 1048576"},
		"duplicates":      {dups.String(), "entry e0 is defined twice"},
	} {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			res := Source("h.pdl", []byte(tc.src), Options{})
			found := false
			for _, f := range res.Findings {
				found = found || f.Message == tc.want
			}
			if !found {
				t.Errorf("no finding %q among %d", tc.want, len(res.Findings))
			}
			if d := time.Since(start); d > 30*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

// TestClosedSetsGuideBound: build refuses a Language whose generated
// closed-sets guide lint would not read back (closed-sets-format), at its
// language statement; one just within the bound builds, and its guide
// reads back whole. 30,000 risk levels built a guide of 1.1 MB that lint
// then rejected.
func TestClosedSetsGuideBound(t *testing.T) {
	compileRisks := func(n int) *Result {
		var src strings.Builder
		src.WriteString("kind k callable \"k\"\nlanguage \"a/v1\" {\n  capabilities {\n    guides\n    validate\n    catalog\n  }\n  guide core \"C\" level=core {\n    body \"# C\"\n  }\n}\n")
		for i := range n {
			fmt.Fprintf(&src, "risk r%d \"x\"\n", i)
		}
		return Source("r.pdl", []byte(src.String()), Options{})
	}
	within := compileRisks(1000)
	if !within.OK() {
		t.Fatalf("1,000 risk levels: %+v", within.Findings)
	}
	for _, g := range within.Server.Languages[0].Guides {
		if p := closedsets.Parse([]byte(g.Body)); g.Generated && len(p.Problems) > 0 {
			t.Errorf("the closed-sets guide of 1,000 risk levels reads back with %+v", p.Problems)
		}
	}
	over := compileRisks(1200)
	if len(over.Findings) != 1 || over.Findings[0].Rule != pdl.RuleValue || over.Findings[0].Line != 2 ||
		!strings.Contains(over.Findings[0].Message, "closed-sets guide would be too large") {
		t.Errorf("1,200 risk levels: want one pdl-value error at the language, got %+v", over.Findings)
	}
}

// TestLocatorInClosedSets: every Language's closed-sets guide states its
// locator dialect after the Diagnostic codes table (§5.5), and the guide
// read back by lint keeps it: langs/notes is text-range, homeflow
// json-pointer.
func TestLocatorInClosedSets(t *testing.T) {
	for name, locator := range map[string]string{"notes": pilotage.LocatorTextRange, "homeflow": pilotage.LocatorJSONPointer} {
		srv, _ := compileExample(t, name)
		l := srv.Languages[0]
		if l.Locator != locator {
			t.Errorf("%s: locator %q, want %q", name, l.Locator, locator)
		}
		var body string
		for _, g := range l.Guides {
			if g.Generated {
				body = g.Body
			}
		}
		p := closedsets.Parse([]byte(body))
		if want := language.DiagnosticPaths(locator, &l.Grammar); p.Sets.DiagnosticPaths != want || !strings.Contains(want, "locator `"+locator+"`") {
			t.Errorf("%s: the closed-sets guide's paths paragraph is %q, want %q", name, p.Sets.DiagnosticPaths, want)
		}
	}
}

// TestLoopDecisionsTable: a Language that documents its loop decisions
// (prose loop_decisions) gets the section closed-sets-format.md asks for,
// prose and a table of every took value, so replay can check them
// (§5.8.2): the engine's continue and exit. Without the prose there is no
// section and no table (issue 13, item 6).
func TestLoopDecisionsTable(t *testing.T) {
	path := "../../langs/homeflow/homeflow.pdl"
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const open = `language "homeflow/v1" {` + "\n"
	with := strings.Replace(string(src), open, open+`  prose loop_decisions """
    Every iteration records its continue decision, and the loop its exit.
    """`+"\n", 1)
	if with == string(src) {
		t.Fatalf("%s has no line %q", path, open)
	}
	for _, c := range []struct {
		name string
		src  string
		want []closedsets.Took
	}{
		{"documented", with, engineLoopTook},
		{"not documented", string(src), nil},
	} {
		res := Source(path, []byte(c.src), Options{Dir: "../../langs/homeflow"})
		if !res.OK() {
			t.Fatalf("%s: %+v", c.name, res.Findings)
		}
		var body string
		for _, g := range res.Server.Languages[0].Guides {
			if g.Generated {
				body = g.Body
			}
		}
		p := closedsets.Parse([]byte(body))
		sec, ok := p.Sections[closedsets.SecLoopDecisions]
		if len(p.Problems) != 0 || ok != (c.want != nil) || ok && !sec.HasTable || fmt.Sprint(p.Sets.LoopTook) != fmt.Sprint(c.want) {
			t.Errorf("%s: Loop decisions section %v (table %v) with %+v, problems %+v; want %+v\n%s", c.name, ok, sec.HasTable, p.Sets.LoopTook, p.Problems, c.want, body)
		}
	}
}

// TestProgramPos: every character of a promoted body as written
// (ProgramSource, a dedented text block) is found in the PDL at the place
// ProgramPos gives it, in JSON (homeflow) and text (ledger) bodies alike,
// so deep replay's findings in a body point at what the author wrote.
func TestProgramPos(t *testing.T) {
	for _, name := range []string{"homeflow", "ledger"} {
		srv, src := compileExample(t, name)
		lines := strings.Split(src, "\n")
		bodies := 0
		for _, e := range srv.Catalog {
			if e.Program == nil {
				continue
			}
			bodies++
			for i, l := range strings.Split(e.ProgramSource, "\n") {
				for col := 1; col <= len(l); col++ {
					p := e.ProgramPos(i+1, col)
					if p.Line < 1 || p.Line > len(lines) || p.Column < 1 || p.Column > len(lines[p.Line-1]) || lines[p.Line-1][p.Column-1] != l[col-1] {
						t.Fatalf("%s %s: body %d:%d (%q) is placed at %d:%d", name, e.ID, i+1, col, l[col-1], p.Line, p.Column)
					}
				}
			}
		}
		if bodies == 0 {
			t.Errorf("%s defines no promoted body", name)
		}
	}
}

// TestAndWords: names join as "a, b and c"; a list report.Clips cut
// ends with its own "and N more", not "and and N more".
func TestAndWords(t *testing.T) {
	var many []string
	for i := range 25 {
		many = append(many, fmt.Sprintf("p%d", i))
	}
	for _, c := range []struct {
		names []string
		want  string
	}{
		{[]string{"a"}, "a"},
		{[]string{"a", "b", "c"}, "a, b and c"},
		{report.Clips(many), "p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13, p14, p15, p16, p17, p18, p19 and 5 more"},
	} {
		if got := andWords(c.names); got != c.want {
			t.Errorf("andWords(%q) = %q, want %q", c.names, got, c.want)
		}
	}
}

// TestItemMembersReadAgain places every member of every catalog item of
// the examples by reading its entry statement again from the file
// (ItemSpotsAt), as pdllint's Locator does: the line it gives starts
// with the member's keyword, the item's own with its entry statement,
// and its id, kind and risk are on that line.
func TestItemMembersReadAgain(t *testing.T) {
	for _, name := range []string{"homeflow", "ledger"} {
		srv, src := compileExample(t, name)
		lines := strings.Split(src, "\n")
		for _, l := range srv.Languages {
			l.ItemSpotsAt = func(item language.Spot) language.ItemSpots { return ItemSpotsAt([]byte(src), item) }
			items := "/catalog/" + pilotage.EscapePointerToken(l.ID) + "/items/"
			n := 0
			for _, e := range srv.Catalog {
				if len(e.Languages) > 0 && !slices.Contains(e.Languages, l.ID) {
					continue
				}
				ptr := items + strconv.Itoa(n)
				n++
				at := func(member string) string {
					p, ok := l.Position(ptr + member)
					if !ok {
						t.Fatalf("%s: no position for %s%s", name, ptr, member)
					}
					return strings.TrimSpace(lines[p.Line-1])
				}
				if line := at(""); !strings.HasPrefix(line, `entry "`+e.ID+`"`) {
					t.Errorf("%s: item %s at %q", name, e.ID, line)
				}
				for _, m := range []string{"/id", "/kind", "/risk", "/risk_hints"} {
					if line := at(m); !strings.HasPrefix(line, `entry "`+e.ID+`"`) {
						t.Errorf("%s: %s of %s at %q", name, m, e.ID, line)
					}
				}
				for m, set := range map[string]bool{"name": e.Name != "", "description": e.Description != "", "revision": e.Revision != "",
					"tags": len(e.Tags) > 0, "languages": len(e.Languages) > 0, "input_schema": e.InputSchema != nil, "output_schema": e.OutputSchema != nil} {
					if !set {
						continue
					}
					if line := at("/" + m); !strings.HasPrefix(line, m+" ") {
						t.Errorf("%s: %s of %s at %q", name, m, e.ID, line)
					}
				}
			}
			if n != len(l.Items) {
				t.Errorf("%s: %d items, %d places", name, n, len(l.Items))
			}
		}
	}
}
