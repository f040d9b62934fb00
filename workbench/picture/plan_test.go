package picture

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/goccy/go-graphviz"
	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
	"github.com/pilotage-dev/pilotage/replay"
)

// ext is a golden's file extension: Mermaid files are .mmd.
func ext(format string) string {
	if format == "mermaid" {
		return ".mmd"
	}
	return "." + format
}

// TestPlanGoldens draws the plans of the langs/ programs in every format.
// The goldens are the pictures docs/pictures.md shows, so the pages
// cannot show a picture the tool no longer draws.
func TestPlanGoldens(t *testing.T) {
	for _, ex := range examples {
		t.Run(ex.name, func(t *testing.T) {
			s := open(t, ex)
			g := FromPlan(s.plan(t, ex), ProgramInfo(s.src, s.lang))
			for _, f := range PlanFormats {
				var b bytes.Buffer
				if err := WritePlan(&b, f, g); err != nil {
					t.Fatal(err)
				}
				golden.Check(t, "../../docs/pictures/"+ex.name+"-plan"+ext(f), b.Bytes())
			}
		})
	}
}

// TestSVGDeterministic renders one plan twice: the same plan gives the
// same bytes, so a golden or a committed picture changes only when the
// plan does.
func TestSVGDeterministic(t *testing.T) {
	ex := examples[0]
	s := open(t, ex)
	g := FromPlan(s.plan(t, ex), ProgramInfo(s.src, s.lang))
	var a, b bytes.Buffer
	if err := SVG(&a, g); err != nil {
		t.Fatal(err)
	}
	if err := SVG(&b, FromPlan(s.plan(t, ex), ProgramInfo(s.src, s.lang))); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("two renders of one plan differ")
	}
}

// TestHostilePlan draws a plan whose ids and calls try to break out of
// their labels in every format: quotes, backslash escapes, markup,
// Mermaid entities, keywords and directives, newlines and control
// characters.
func TestHostilePlan(t *testing.T) {
	src, err := os.ReadFile("testdata/hostile.plan.json")
	if err != nil {
		t.Fatal(err)
	}
	var p pilotage.Plan
	if err := json.Unmarshal(src, &p); err != nil {
		t.Fatal(err)
	}
	g := FromPlan(&p, Info{Conds: map[string]string{"br\"anch": `x > "1" && y < 2 | z # \N`}})
	for _, f := range PlanFormats {
		var b bytes.Buffer
		if err := WritePlan(&b, f, g); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out := b.String()
		if f != "dot" && strings.Contains(out, "<script") {
			t.Errorf("%s: markup from an id reached the output unescaped", f)
		}
		if f == "mermaid" && strings.Contains(out, "%%{") {
			t.Errorf("mermaid: a %%%%{…}%%%% directive from an id reached the output, where Mermaid would read it as configuration")
		}
		golden.Check(t, "testdata/hostile"+ext(f), b.Bytes())
	}
	// Every node, and no more, becomes a box of the DOT graph: a label
	// that broke out of its quotes would add or lose statements.
	var b bytes.Buffer
	if err := DOT(&b, g); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), ` id="step-`); n != len(g.Nodes) {
		t.Errorf("DOT has %d step boxes, the plan %d steps", n, len(g.Nodes))
	}
}

// TestPlanShapes places steps whose arm or loop names no construct, or
// a cycle, at top level rather than losing them or looping.
func TestPlanShapes(t *testing.T) {
	p := &pilotage.Plan{Steps: []pilotage.PlanStep{
		{ID: "a", Kind: "loop", Loop: "b"},
		{ID: "b", Kind: "loop", Loop: "a"},
		{ID: "c", Kind: "step", Arm: &pilotage.ArmRef{Branch: "nowhere", Label: "x"}},
		{ID: "d", Kind: "step", Loop: "c"},
		{ID: "a", Kind: "step"},
		{ID: "e", Kind: "step", Arm: &pilotage.ArmRef{Branch: "f", Label: "unlisted"}},
		{ID: "f", Kind: "branch", Arms: []string{"yes"}},
	}}
	g := FromPlan(p, Info{})
	var roots []string
	for _, n := range g.Root {
		roots = append(roots, n.ID)
	}
	if got := strings.Join(roots, " "); got != "b c d f" {
		t.Errorf("top level = %q, want b c d f", got)
	}
	if len(g.Nodes) != 6 {
		t.Errorf("%d nodes, want 6 (the duplicate a dropped)", len(g.Nodes))
	}
	if f := g.Node("f"); len(f.Arms) != 2 || f.Arms[1].Label != "unlisted" || f.Arms[1].Steps[0].ID != "e" {
		t.Errorf("branch f arms = %+v, want yes and the unlisted arm holding e", f.Arms)
	}
}

// TestDocsMermaid keeps the Mermaid block of docs/pictures.md equal to
// the golden it shows, so the page GitHub renders is the tool's output.
func TestDocsMermaid(t *testing.T) {
	page, err := os.ReadFile("../../docs/pictures.md")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../../docs/pictures/homeflow-evening-plan.mmd")
	if err != nil {
		t.Fatal(err)
	}
	_, body, _ := strings.Cut(string(want), "---\nflowchart")
	if !strings.Contains(string(page), "```mermaid\nflowchart"+body+"```") {
		t.Error("docs/pictures.md's mermaid block is not docs/pictures/homeflow-evening-plan.mmd without its title; copy it over")
	}
}

// TestLargePlanInParts draws a plan too large for one layout in parts
// stacked in one SVG document: every step once, parts joined by their
// connector boxes, every element id unique.
func TestLargePlanInParts(t *testing.T) {
	g := FromPlan(bigPlan(300), Info{})
	var b bytes.Buffer
	if err := SVG(&b, g); err != nil {
		t.Fatal(err)
	}
	svg := b.String()
	parts := strings.Count(svg, "<svg ")
	if parts < 4 {
		t.Fatalf("%d <svg> elements; want the document and at least 3 parts", parts)
	}
	for _, n := range g.Nodes {
		if c := strings.Count(svg, ">"+n.ID+"</text>"); c != 1 {
			t.Errorf("step %q drawn %d times", n.ID, c)
		}
	}
	if c := strings.Count(svg, ">on in part "); c != parts-2 {
		t.Errorf("%d connectors to a next part, want %d", c, parts-2)
	}
	seen := map[string]bool{}
	for _, m := range regexp.MustCompile(`id="([^"]+)"`).FindAllStringSubmatch(svg, -1) {
		if seen[m[1]] {
			t.Errorf("id %q used twice", m[1])
		}
		seen[m[1]] = true
	}
}

// FuzzPlanDOT draws arbitrary plans: whatever the ids, calls, labels and
// references, the DOT text is one graph Graphviz reads with exactly one
// box per step, and no Mermaid label lets a line break through.
func FuzzPlanDOT(f *testing.F) {
	src, err := os.ReadFile("testdata/hostile.plan.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(src, "x > 1")
	f.Add([]byte(`{"steps": [{"id": "a", "kind": "loop", "loop": "a"}, {"id": "b", "arm": {"branch": "a", "label": "\n"}}]}`), "\\")
	f.Fuzz(func(t *testing.T, src []byte, cond string) {
		var p pilotage.Plan
		if json.Unmarshal(src, &p) != nil || len(p.Steps) > 200 {
			return
		}
		info := Info{Conds: map[string]string{}, Runs: map[string]string{}}
		for _, s := range p.Steps {
			info.Conds[s.ID] = cond
		}
		g := FromPlan(&p, info)
		dot := dotText(layout(g), true)
		parsed, err := graphviz.ParseBytes([]byte(dot))
		if err != nil {
			t.Fatalf("Graphviz cannot read the DOT: %v\n%s", err, dot)
		}
		defer parsed.Close()
		if n, _ := parsed.NodeNum(); n != len(g.Nodes)+2+len(g.Levels) {
			t.Fatalf("DOT has %d nodes, want %d steps + start, end and %d legend boxes", n, len(g.Nodes), len(g.Levels))
		}
		for _, line := range strings.Split(mermaidText(layout(g)), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "<br/>") {
				t.Fatalf("a Mermaid line starts inside a label: %q", line)
			}
		}
	})
}

// TestTooLargeNotDrawn: a plan of more than MaxBoxes boxes is no SVG
// picture, refused before Graphviz sees it (a 20,000-step plan takes 167
// to 258 MB and 50 s to draw); dot and mermaid still draw it, and the
// HTML page says in the picture's place why there is none.
func TestTooLargeNotDrawn(t *testing.T) {
	plan := bigPlan(MaxBoxes + 1)
	g := FromPlan(plan, Info{})
	var large *TooLargeError
	if err := SVG(io.Discard, g); !errors.As(err, &large) || large.Boxes <= MaxBoxes {
		t.Errorf("SVG of %d steps: %v, want a TooLargeError", len(plan.Steps), err)
	}
	if err := Drawable("svg", g); !errors.As(err, &large) {
		t.Errorf("Drawable(svg) = %v", err)
	}
	for _, format := range []string{"dot", "mermaid"} {
		if err := Drawable(format, g); err != nil {
			t.Errorf("Drawable(%s) = %v", format, err)
		}
		if err := WritePlan(io.Discard, format, g); err != nil {
			t.Errorf("%s: %v", format, err)
		}
	}
	if err := Drawable("svg", FromPlan(bigPlan(300), Info{})); err != nil {
		t.Errorf("Drawable of 300 steps: %v", err)
	}
	src, err := json.Marshal(plan)
	if err != nil {
		t.Fatal(err)
	}
	rp, err := replay.LoadPlan("plan.json", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	r := NewReplay(rp)
	svg, err := r.Page(&report.Report{}, PageOptions{}).SVG()
	if err != nil || !strings.Contains(string(svg), "more than the 5000 of an SVG picture") || strings.Contains(string(svg), "<svg") {
		t.Errorf("the page's picture: %v, %.300s", err, svg)
	}
	// So replay does not start Graphviz for it (picture.Prepare).
	if r.DrawsSVG("html") {
		t.Error("a page of a plan too large to draw draws SVG")
	}
}

// TestLongIDsClipped: a picture quotes a step id, an arm label and a
// reference clipped (report.Clip), as reports do: Graphviz lays a label
// or tooltip out in time that grows faster than its length, and a plan
// whose one step id was 2 MB took 7 s and 305 MB to draw as replay's
// page, and four times as long an id more than ten times as long.
func TestLongIDsClipped(t *testing.T) {
	long := strings.Repeat("<&|", 100_000)
	p := pilotage.Plan{MaxRisk: "safe", Steps: []pilotage.PlanStep{
		{ID: "b" + long, Kind: pilotage.KindBranch, Arms: []string{"then" + long, "else"}},
		{ID: "s" + long, Kind: pilotage.KindStep, Risk: "safe", Calls: []string{"c" + long}, Arm: &pilotage.ArmRef{Branch: "b" + long, Label: "then" + long}},
	}}
	g := FromPlan(&p, Info{})
	for _, f := range PlanFormats {
		var b bytes.Buffer
		if err := WritePlan(&b, f, g); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if b.Len() > 64<<10 {
			t.Errorf("%s: %d bytes drawn for ids of 300 KB, want each quoted clipped", f, b.Len())
		}
	}
}
