package conform

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/expr"
	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
	"github.com/pilotage-dev/pilotage/lint"
	"github.com/pilotage-dev/pilotage/lint/rules"
	"github.com/pilotage-dev/pilotage/workbench/compile"
	"github.com/pilotage-dev/pilotage/workbench/emit"
	"github.com/pilotage-dev/pilotage/workbench/engine"
	"github.com/pilotage-dev/pilotage/workbench/mcpserver"
)

const homeflowDir = "../../langs/homeflow/"

// homeflow compiles langs/homeflow for the reference server.
func homeflow(t testing.TB) *compile.Result {
	return compiled(t, homeflowDir+"homeflow.pdl")
}

// reference serves res with the workbench engine as principal.
func reference(t testing.TB, res *compile.Result, principal string) *mcpserver.Server {
	t.Helper()
	eng, err := engine.New(res.Server, engine.Options{CheckTraces: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	s, err := mcpserver.New(context.Background(), eng, mcpserver.Options{Principal: principal})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// inMemory connects a server over an in-memory transport and returns the
// client's end.
func inMemory(t testing.TB, s *mcp.Server) mcp.Transport {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	if _, err := s.Connect(context.Background(), st, nil); err != nil {
		t.Fatal(err)
	}
	return ct
}

// evening is langs/homeflow's example program with its input.
func evening(t testing.TB) *Program {
	return &Program{
		File:  "evening.json",
		Src:   readFile(t, homeflowDir+"programs/evening.json"),
		Input: readFile(t, homeflowDir+"programs/evening.input.json"),
	}
}

func readFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func check(t testing.TB, tr mcp.Transport, opt Options) *report.Report {
	t.Helper()
	if opt.Dir == "" {
		opt.Dir = t.TempDir()
	}
	rep, err := Check(context.Background(), tr, opt)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func findings(rep *report.Report) string {
	var b bytes.Buffer
	_ = report.Write(&b, report.Text, rep, report.Options{})
	return b.String()
}

// runID matches the engine's random run ids.
var runID = regexp.MustCompile(`run-[0-9a-f]{32}`)

// checkGolden compares the findings with a golden file (-update rewrites
// it), with what changes from run to run replaced: the save directory by
// DIR, and the engine's run ids by one of the same length, so the carets
// under a snippet stay where they were.
func checkGolden(t *testing.T, name string, rep *report.Report, dir string) {
	t.Helper()
	out := findings(rep)
	if dir != "" {
		out = strings.ReplaceAll(out, dir, "DIR")
	}
	out = runID.ReplaceAllLiteralString(out, "run-"+strings.Repeat("X", 32))
	golden.Check(t, name, []byte(out))
	ruleFixture(t, rep, dir, fixtureOf[strings.TrimSuffix(filepath.Base(name), ".golden")]...)
}

// fixtureOf names the broken servers, by their golden file, that are the
// fixtures of conform's rules (Layout): each rule's fixture is the
// findings of that rule alone on one server that breaks it.
var fixtureOf = map[string][]string{
	"binding-violations":                    {RuleBindingExtension, RuleBindingTools, RuleCarrierErrorChannel, RuleRequestErrorChannel, RuleResultChannel},
	"guide-resources":                       {RuleBindingResources},
	"fetch-other-trace":                     {RuleTraceFetchRun},
	"refusal-changed-since-answered":        {RuleLookupChangedSince},
	"refusal-unknown-name-misplaced":        {RuleValidateUnknownName},
	"refusal-invalid-program-run":           {RuleExecuteRefusals},
	"refusal-order-and-kinds":               {RuleCatalogDriftText},
	"refusal-refused-fetch-distinguishable": {RuleNotFoundIndistinguishable},
}

// ruleFixture checks, for each rule, its fixture testdata/rules/<id>.golden
// against the findings of that rule alone in rep, of which there must be
// at least one (-update rewrites it). The summary line is left out: it
// counts the rules checked, which any new rule of lint or replay changes.
func ruleFixture(t *testing.T, rep *report.Report, dir string, rules ...string) {
	t.Helper()
	for _, id := range rules {
		only := &report.Report{Sources: rep.Sources}
		for _, f := range rep.Findings {
			if f.Rule == id {
				only.Add(f)
			}
		}
		if len(only.Findings) == 0 {
			t.Errorf("the server that is the fixture of %s gets no finding of it", id)
			continue
		}
		out := findings(only)
		out = strings.TrimRight(out[:strings.LastIndex(strings.TrimSuffix(out, "\n"), "\n")+1], "\n") + "\n"
		if dir != "" {
			out = strings.ReplaceAll(out, dir, "DIR")
		}
		golden.Check(t, Layout.FixtureOf(id)[len("workbench/conform/"):], []byte(runID.ReplaceAllLiteralString(out, "run-"+strings.Repeat("X", 32))))
	}
}

// The reference server conforms: no finding from conform's own rules,
// from every lint rule on what it publishes, or from every replay rule on
// the trace of a real Run and of its fetch.
func TestReferenceServerIsClean(t *testing.T) {
	res := homeflow(t)
	dir := t.TempDir()
	rep := check(t, inMemory(t, reference(t, res, "owner").MCP()), Options{Dir: dir, Execute: true, Program: evening(t)})
	if len(rep.Findings) != 0 {
		t.Fatalf("findings on the reference server:\n%s", findings(rep))
	}
	for _, f := range []string{"snapshot.json", "plan.json", "run.json", "trace.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s not saved: %v", f, err)
		}
	}
	// What conform read from the server is what build emits from the same
	// PDL: the same guides with their bodies and the same catalog entries
	// (the engine orders and versions its catalog its own way), and the
	// same manifest but for retention, which serve without --data turns
	// into "session" (docs/serve.md).
	built, err := emit.SnapshotJSON(res.Server)
	if err != nil {
		t.Fatal(err)
	}
	var got, want struct {
		Manifest struct {
			Languages []map[string]any `json:"languages"`
		} `json:"manifest"`
		Guides  map[string]any `json:"guides"`
		Catalog map[string]struct {
			Items []map[string]any `json:"items"`
		} `json:"catalog"`
	}
	if err := json.Unmarshal(readFile(t, filepath.Join(dir, "snapshot.json")), &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(built, &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Guides, want.Guides) {
		t.Errorf("guides differ from build's")
	}
	l := got.Manifest.Languages[0]
	if l["retention"] != "session" {
		t.Errorf("retention %v", l["retention"])
	}
	l["retention"] = want.Manifest.Languages[0]["retention"]
	if !reflect.DeepEqual(got.Manifest, want.Manifest) {
		t.Errorf("manifest differs from build's:\n%v\n%v", got.Manifest, want.Manifest)
	}
	for id, c := range want.Catalog {
		byID := func(items []map[string]any) func(i, j int) bool {
			return func(i, j int) bool { return items[i]["id"].(string) < items[j]["id"].(string) }
		}
		g := got.Catalog[id].Items
		sort.Slice(g, byID(g))
		sort.Slice(c.Items, byID(c.Items))
		if len(g) == 0 || !reflect.DeepEqual(g, c.Items) {
			t.Errorf("catalog of %s differs from build's:\n%v\n%v", id, g, c.Items)
		}
	}
}

// The fake serving the example snapshot is a conformant server: no
// finding. This keeps the broken variants below honest.
func TestFakeServingACleanSnapshotIsClean(t *testing.T) {
	f := newFake(t, "../../docs/examples/snapshot.json")
	rep := check(t, inMemory(t, f.server()), Options{})
	if len(rep.Findings) != 0 {
		t.Fatalf("findings:\n%s", findings(rep))
	}
}

// A server publishing broken artifacts gets exactly the findings `pilotage
// lint` gives the same artifacts as a file, each pointing at the value in
// the saved snapshot.
func TestPublishedArtifactsGetLintsFindings(t *testing.T) {
	const file = "../../docs/examples/broken-snapshot.json"
	dir := t.TempDir()
	rep := check(t, inMemory(t, newFake(t, file).server()), Options{Dir: dir})
	want, err := lint.Run(rules.All(), []*lint.Input{{File: file, Src: readFile(t, file)}}, lint.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Findings) == 0 {
		t.Fatal("the broken example has no findings")
	}
	key := func(f report.Finding) string { return f.Rule + " " + f.Pointer + " " + f.Message }
	var got, exp []string
	saved := filepath.ToSlash(filepath.Join(dir, "snapshot.json"))
	for _, f := range rep.Findings {
		if f.File != saved || f.Line < 1 {
			t.Errorf("finding not placed in the saved snapshot: %+v", f)
		}
		got = append(got, key(f))
	}
	for _, f := range want.Findings {
		exp = append(exp, key(f))
	}
	sort.Strings(got)
	sort.Strings(exp)
	if !reflect.DeepEqual(got, exp) {
		t.Errorf("conform:\n%s\nlint:\n%s", strings.Join(got, "\n"), strings.Join(exp, "\n"))
	}
}

// A --program whose expression is longer than expr.MaxSize code points
// is refused by a conformant server with resource_limit (§10.1: a bound
// exceeded during validation is a request error of that kind), which
// conform reported as the server failing to answer (operation-answers).
// The refusal is the program's: program-valid says so, naming the bound,
// and the loop checks that need a valid program do not run.
func TestProgramOverExpressionBound(t *testing.T) {
	long := fmt.Sprintf(`{"steps": [], "output": "%s1"}`, strings.Repeat("1 + ", expr.MaxSize/4))
	rep := check(t, inMemory(t, reference(t, homeflow(t), "owner").MCP()),
		Options{Program: &Program{File: "long.json", Src: []byte(long)}, Execute: true})
	got := findings(rep)
	if len(rep.Findings) != 1 || rep.Findings[0].Rule != RuleProgramValid || !strings.Contains(got, "resource_limit") {
		t.Errorf("want one program-valid finding naming resource_limit:\n%s", got)
	}
}
