package replay

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/base/ruleset"
	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
	"github.com/pilotage-dev/pilotage/internal/testsupport/ruletest"
)

// Each rule has testdata/rules/<id>.txtar, checked by golden.RuleFixtures.
// In it:
//
//	-- plan.json --        the plan every trace of the archive runs against
//	-- NAME.plan.json --   (optional) the plan for NAME.json instead
//	-- snapshot.json --    (optional) the Language, turning on closed sets
//	-- program.json --     (optional) the program of the traces, turning on
//	                       deep replay in testLanguage (deep_test.go)
//	-- body.json --        (optional) the body of prog.body@1, a promoted
//	                       program the program runs (deep_test.go)
//	-- input.json --       (optional) the Runs' input, for deep replay
//	-- NAME.json --        a trace file
//	-- NAME.want --        the findings of this rule alone, one per line:
//	                       FILE:LINE:COL SEVERITY RULE §SECTION POINTER [key=RUN_ID] [see FILE:LINE:COL]…
//	                       (empty for a passing fixture)
//
// Every trace whose name starts with "pass" must be clean under all rules:
// a passing fixture is a correct trace.
func TestRuleFixtures(t *testing.T) {
	// A plan or a snapshot is context the traces of the archive share.
	isTrace := func(name string) bool {
		return name != "plan" && name != "snapshot" && name != "program" && name != "body" && name != "input" && !strings.HasSuffix(name, ".plan")
	}
	for _, r := range Rules() {
		t.Run(r.ID, func(t *testing.T) {
			golden.RuleFixtures(t, filepath.Join("testdata", "rules", r.ID+".txtar"), isTrace, func(a *golden.Archive, name string, all bool) string {
				rep := replayFixture(t, a, name)
				if all {
					return render(rep, "")
				}
				return render(rep, r.ID)
			})
		})
	}
}

// replayFixture replays NAME.json of an archive against its NAME.plan.json
// or else its plan.json, with the Language of its snapshot.json if any.
//
// A replay of the same trace of the same archive is kept: TestRuleFixtures
// replays a passing trace for its rule and for all, and TestLineEnds
// replays each trace as written again.
func replayFixture(t *testing.T, a *golden.Archive, name string) *report.Report {
	t.Helper()
	trace, _ := a.File(name + ".json")
	key := a.Path + "\x00" + name + "\x00" + string(trace)
	fixtureMemo.Lock()
	defer fixtureMemo.Unlock()
	if rep, ok := fixtureMemo.m[key]; ok {
		return rep
	}
	rep := replayFixtureOnce(t, a, name)
	fixtureMemo.m[key] = rep
	return rep
}

var fixtureMemo = struct {
	sync.Mutex
	m map[string]*report.Report
}{m: map[string]*report.Report{}}

func replayFixtureOnce(t *testing.T, a *golden.Archive, name string) *report.Report {
	t.Helper()
	planName := name + ".plan.json"
	if _, ok := a.File(planName); !ok {
		planName = "plan.json"
	}
	planSrc, _ := a.File(planName)
	plan, err := LoadPlan(planName, planSrc, 0)
	if err != nil {
		t.Fatalf("%s: %v", planName, err)
	}
	var opt Options
	if snap, ok := a.File("snapshot.json"); ok {
		if opt.Language, err = LoadSnapshot("snapshot.json", snap, ""); err != nil {
			t.Fatal(err)
		}
	}
	if prog, ok := a.File("program.json"); ok {
		opt.Deep = deepFixture(t, prog, a)
	}
	src, _ := a.File(name + ".json")
	in := Input{File: name + ".json", Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(src)), nil }}
	rep, err := Run(plan, []Input{in}, opt)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// render prints the findings of one rule ("" for all) in .want form.
func render(rep *report.Report, rule string) string {
	var b strings.Builder
	for _, f := range rep.Findings {
		if rule != "" && f.Rule != rule {
			continue
		}
		line := fmt.Sprintf("%s:%d:%d %s %s §%s %s", f.File, f.Line, f.Column, f.Severity, f.Rule, f.Section, f.Pointer)
		b.WriteString(strings.TrimRight(line, " "))
		if f.Key != "" {
			fmt.Fprintf(&b, " key=%s", f.Key)
		}
		for _, r := range f.Related {
			fmt.Fprintf(&b, " see %s:%d:%d", r.File, r.Line, r.Column)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// TestRulesHaveDocs keeps the rules and docs/replay.md in step: every rule
// has a section headed by its ID that cites its section, and every rule
// section of the page has a rule.
func TestRulesHaveDocs(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "docs", "replay.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	headings := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^#### `([a-z-]+)`").FindAllStringSubmatch(doc, -1) {
		headings[m[1]] = true
	}
	for _, r := range Rules() {
		if !headings[r.ID] {
			t.Errorf("docs/replay.md has no section \"#### `%s`\"", r.ID)
			continue
		}
		delete(headings, r.ID)
		sec := doc[strings.Index(doc, "#### `"+r.ID+"`"):]
		if next := strings.Index(sec[1:], "\n#"); next > 0 {
			sec = sec[:next]
		}
		if !strings.Contains(sec, "§"+r.Section) {
			t.Errorf("docs/replay.md section %s does not cite §%s", r.ID, r.Section)
		}
	}
	for id := range headings {
		t.Errorf("docs/replay.md documents %s, which is no rule", id)
	}
}

// TestRuleShape: every rule is found from its ID in one step: its file
// <id>_rule.go, its section of docs/replay.md and its fixture.
func TestRuleShape(t *testing.T) { ruletest.RuleShape(t, filepath.Join(".."), registry) }

// TestRulesTable keeps the rule table of docs/replay.md equal to the
// registry; go test -update rewrites it.
func TestRulesTable(t *testing.T) {
	golden.Generated(t, filepath.Join("..", "docs", "replay.md"), "rules",
		[]byte(ruleset.Table(registry.Infos(), func(id string) string { return "#" + id })))
}

// TestLineEnds: every rule fixture's traces, their lines ended in a lone
// CR or CR LF instead of LF, give the same findings at the same lines and
// columns: the streaming reader counts line ends as every position does
// (textpos.LineEnd). Before, a trace of lone CRs was all line 1.
func TestLineEnds(t *testing.T) {
	for _, r := range Rules() {
		a := golden.ReadArchive(t, filepath.Join("testdata", "rules", r.ID+".txtar"))
		for i := range a.Files {
			f := &a.Files[i]
			name, ok := strings.CutSuffix(f.Name, ".json")
			if !ok || name == "plan" || name == "snapshot" || name == "program" || name == "body" || name == "input" || strings.HasSuffix(name, ".plan") {
				continue
			}
			want := render(replayFixture(t, a, name), "")
			for _, end := range []string{"\r", "\r\n"} {
				f.Data = bytes.ReplaceAll(f.Data, []byte("\n"), []byte(end))
				if got := render(replayFixture(t, a, name), ""); got != want {
					t.Errorf("%s %s with %q line ends:\n%s\nwant, as with LF:\n%s", r.ID, f.Name, end, got, want)
				}
				f.Data = bytes.ReplaceAll(f.Data, []byte(end), []byte("\n"))
			}
		}
	}
}
