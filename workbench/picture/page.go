package picture

import (
	"errors"
	"fmt"
	"html/template"
	"path/filepath"
	"sort"
	"strings"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// Page is a replay report ready to write as HTML or Markdown.
type Page struct {
	Title string
	// Errors, Warnings and Entries total the replay.
	Errors, Warnings, Entries int
	graph                     *Graph
	Steps                     []StepRow
	Traces                    []*TraceRow
	// Outcomes groups the traces by run status, Rules the findings by
	// rule (a batch's two questions: how did the Runs end, what broke).
	Outcomes []Group
	Rules    []Group
	// General are the findings that concern no single plan step.
	General []FindingView
	base    string
}

// StepRow is a plan step in the report's table.
type StepRow struct {
	Key, ID, Kind, Risk, Inside string
	Ran                         string
	Status, Time, Arms          string
	Expanded                    string
	NotRun, Flagged             bool
	Findings                    []FindingView
}

// Group is one line of a batch's summary.
type Group struct {
	Name, Section string
	Traces        int
	Findings      int
	// Files are the first traces of the group (at most groupFiles).
	Files []string
}

// groupFiles bounds the trace files a group names.
const groupFiles = 5

// FindingView is a finding as a report shows it, with a link to its
// place relative to the report.
type FindingView struct {
	Severity, Rule, Section, Message, Hint, Key string
	Loc, Href                                   string
}

// PageOptions place the report.
type PageOptions struct {
	// Dir is the directory the report is written to; links to trace and
	// plan files are relative to it ("" for the working directory).
	Dir string
}

// Page builds the report from replay's report, after every trace has
// been read.
func (r *Replay) Page(rep *report.Report, opt PageOptions) *Page {
	p := &Page{graph: r.g, Traces: r.traces, base: opt.Dir}
	general := r.placeFindings(rep.Findings)
	for _, f := range rep.Findings {
		switch f.Severity {
		case report.Error:
			p.Errors++
		case report.Warning:
			p.Warnings++
		}
	}
	for _, t := range r.traces {
		p.Entries += t.Entries
	}
	p.Title = fmt.Sprintf("pilotage replay: %s against %s", report.Count(len(r.traces), "trace"), r.plan.File)
	for _, f := range general {
		p.General = append(p.General, p.view(f))
	}
	for i, n := range r.g.Nodes {
		p.Steps = append(p.Steps, p.stepRow(i, n))
	}
	p.groups(rep.Findings)
	return p
}

func (p *Page) stepRow(i int, n *Node) StepRow {
	row := StepRow{Key: fmt.Sprintf("s%d", i), ID: n.ID, Kind: n.Kind, Risk: dashIf(n.Risk), Inside: "-", Ran: "not run", Status: "-", Time: "-", NotRun: !n.Run.Ran(), Flagged: n.Run.Flagged()}
	if n.Parent != nil {
		row.Inside = n.Parent.Kind + " " + n.Parent.ID
	}
	if o := n.Run; o.Ran() {
		row.Ran = report.Count(o.Entries, "entry")
		if n.Kind == pilotage.KindLoop {
			row.Ran += ", " + report.Count(o.Iterations, "iteration")
		}
		row.Status, row.Time = o.StatusText(), o.TimeText()
	}
	var arms []string
	for _, a := range n.Arms {
		arms = append(arms, armText(a))
	}
	row.Arms = strings.Join(arms, "; ")
	if o := n.Run; o != nil && len(o.Expanded) > 0 {
		var ids []string
		for id, k := range o.Expanded {
			ids = append(ids, fmt.Sprintf("%s ×%d", id, k))
		}
		sort.Strings(ids)
		row.Expanded = strings.Join(ids, ", ")
	}
	if n.Run != nil {
		for _, f := range n.Run.Findings {
			row.Findings = append(row.Findings, p.view(f))
		}
	}
	return row
}

// groups sums the traces by run status and the findings by rule.
func (p *Page) groups(fs []report.Finding) {
	out := map[string]*Group{}
	var order []string
	for _, t := range p.Traces {
		name := "no outcome"
		if t.Outcome != nil {
			name = t.Outcome.Status
		}
		g := out[name]
		if g == nil {
			g = &Group{Name: name}
			out[name] = g
			order = append(order, name)
		}
		g.Traces++
		g.Findings += t.Errors + t.Warnings
		if len(g.Files) < groupFiles {
			g.Files = append(g.Files, t.File)
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return out[order[i]].Traces > out[order[j]].Traces })
	for _, name := range order {
		p.Outcomes = append(p.Outcomes, *out[name])
	}
	rules := map[string]*Group{}
	files := map[string]map[string]bool{}
	for _, f := range fs {
		g := rules[f.Rule]
		if g == nil {
			g = &Group{Name: f.Rule, Section: f.Section}
			rules[f.Rule], files[f.Rule] = g, map[string]bool{}
		}
		g.Findings++
		if !files[f.Rule][f.File] {
			files[f.Rule][f.File] = true
			g.Traces++
			if len(g.Files) < groupFiles {
				g.Files = append(g.Files, f.File)
			}
		}
	}
	for _, g := range rules {
		p.Rules = append(p.Rules, *g)
	}
	sort.Slice(p.Rules, func(i, j int) bool {
		if p.Rules[i].Findings != p.Rules[j].Findings {
			return p.Rules[i].Findings > p.Rules[j].Findings
		}
		return p.Rules[i].Name < p.Rules[j].Name
	})
}

func (p *Page) view(f report.Finding) FindingView {
	loc := f.File
	if f.Line > 0 {
		loc = fmt.Sprintf("%s:%d:%d", f.File, f.Line, f.Column)
	}
	return FindingView{Severity: string(f.Severity), Rule: f.Rule, Section: f.Section, Message: f.Message, Hint: f.Hint, Key: f.Key,
		Loc: loc, Href: p.link(f.File)}
}

// link is a file's address relative to the report, "" for standard
// input.
func (p *Page) link(file string) string {
	if file == "" || file == "-" {
		return ""
	}
	abs, err := filepath.Abs(filepath.FromSlash(file))
	if err != nil {
		return ""
	}
	base, err := filepath.Abs(p.base)
	if err != nil {
		return ""
	}
	rel, err := filepath.Rel(base, abs)
	if err != nil {
		return ""
	}
	return filepath.ToSlash(rel)
}

// SVG is the plan graph with the traces over it, for the HTML page; a
// note in its place for a plan too large to draw (MaxBoxes), so the
// page's tables still report the traces.
func (p *Page) SVG() (template.HTML, error) {
	b, err := drawSVG(layout(p.graph), true)
	var large *TooLargeError
	if errors.As(err, &large) {
		return template.HTML(`<p>` + template.HTMLEscapeString(large.Error()+"; the tables below list its steps") + `</p>`), nil
	}
	if err != nil {
		return "", err
	}
	s := string(b)
	if i := strings.Index(s, "<svg"); i >= 0 {
		s = s[i:] // the XML prolog and DOCTYPE do not belong inside HTML
	}
	return template.HTML(s), nil
}

func dashIf(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
