// Package progtext writes the validate, plan and execute responses (§6.4,
// §6.5) as the text pilotage validate, plan and run print: diagnostics
// placed in the program's files, the plan as a table of steps, the Run
// with its output and trace.
package progtext

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/internal/model/progdiag"
	"github.com/pilotage-dev/pilotage/internal/model/program"
	"github.com/pilotage-dev/pilotage/internal/model/syntax"
)

// Files are the files a command read, ready for placing diagnostics.
type Files struct {
	// Program names the program file, the one the summary counts.
	Program string
	Docs    progdiag.Files
	// Sources holds each file's bytes by name, for the source lines.
	Sources map[string][]byte
}

// Diagnostics prints diagnostics the way lint prints findings, at most
// maxPerRule of one code (--max-per-rule).
func Diagnostics(w io.Writer, diags []pilotage.Diagnostic, files *Files, maxPerRule int, color bool) error {
	rep := &report.Report{Tool: "pilotage validate", Sources: files.Sources, Files: []string{files.Program}}
	// Listed in the order of the text, then what the cap left out,
	// counted (report.Sort would sort those in too, and reorder findings
	// at one position by rule).
	c := report.NewCap(maxPerRule)
	rep.AddListed(byPosition(progdiag.CappedFindings(diags, files.Docs, c))...)
	rep.AddListed(c.Left()...)
	rep.Summary.Files = 1
	return report.Write(w, report.Text, rep, report.Options{Color: color})
}

// byPosition orders findings as their files and positions are read: the
// engine reports in the order it checks (a program's unknown names
// before its expressions), which jumps about the text. Findings at one
// position keep the engine's order, and files their first finding's.
func byPosition(fs []report.Finding) []report.Finding {
	slices.SortStableFunc(fs, positionOrder(fs))
	return fs
}

// positionOrder compares findings of fs as byPosition orders them.
func positionOrder(fs []report.Finding) func(a, b report.Finding) int {
	rank := map[string]int{}
	for _, f := range fs {
		if _, ok := rank[f.File]; !ok {
			rank[f.File] = len(rank)
		}
	}
	return func(a, b report.Finding) int {
		return cmp.Or(cmp.Compare(rank[a.File], rank[b.File]), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
	}
}

// InTextOrder sorts diags in place in the order Diagnostics lists them:
// by their place in the files, the engine's order kept at one place, so
// --format json lists them as the text does.
func InTextOrder(diags []pilotage.Diagnostic, files *Files) {
	fs := progdiag.Findings(diags, files.Docs)
	order := positionOrder(fs)
	idx := make([]int, len(diags))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return order(fs[a], fs[b]) })
	sorted := make([]pilotage.Diagnostic, len(diags))
	for i, j := range idx {
		sorted[i] = diags[j]
	}
	copy(diags, sorted)
}

// Plan prints a valid program's plan (§5.6): its maximum risk and hints,
// then one line per step.
func Plan(w io.Writer, resp *pilotage.ValidateResponse) error {
	pl := resp.Plan
	if pl == nil {
		// Without plan a Host gates on the referenced entries (§6.4, §7.3).
		_, err := fmt.Fprintf(w, "valid; the Language declares no plan (§5.6); references: %s\n", dash(strings.Join(resp.References, ", ")))
		return err
	}
	h := pl.MaxRiskHints
	fmt.Fprintf(w, "plan: %s, max_risk %s (readOnly %v, destructive %v, openWorld %v)\n",
		report.Count(len(pl.Steps), "step"), pl.MaxRisk, h.ReadOnly, h.Destructive, h.OpenWorld)
	// The rows are made from the plan twice, not kept: the plan of
	// 20,000 steps held its table (1 MB, grown by doubling) and the
	// text made of it (0.5 MB) beside itself (docs/performance.md, "A
	// large valid program").
	err := WriteRows(w, 1+len(pl.Steps), func(i int) []string {
		if i == 0 {
			return []string{"STEP", "KIND", "RISK", "CALLS", "INSIDE"}
		}
		s := pl.Steps[i-1]
		inside := "-"
		switch {
		case s.Arm != nil:
			inside = fmt.Sprintf("%s arm %s", s.Arm.Branch, s.Arm.Label)
		case s.Loop != "":
			inside = "loop " + s.Loop
		}
		return []string{s.ID, s.Kind, dash(s.Risk), dash(strings.Join(s.Calls, ",")), inside}
	})
	if err != nil {
		return err
	}
	if resp.CatalogVersion != "" {
		_, err := fmt.Fprintf(w, "catalog_version %s\n", resp.CatalogVersion)
		return err
	}
	return nil
}

// Run prints a Run: its diagnostics, outcome, output and trace. It is
// composed in memory and written at once, so a failed write (a full
// disk) is one error returned, not a line lost unseen. The trace's rows
// are steps, when the Run handed its entries over as it went
// (engine.ExecuteEach), or else those of resp.Trace.Steps.
func Run(w io.Writer, resp *pilotage.ExecuteResponse, steps *Trace, files *Files, maxPerRule int, color bool) error {
	var b bytes.Buffer
	if len(resp.Diagnostics) > 0 {
		if err := Diagnostics(&b, resp.Diagnostics, files, maxPerRule, color); err != nil {
			return err
		}
	}
	line := fmt.Sprintf("run %s: %s", resp.RunID, resp.Outcome.Status)
	if resp.Outcome.Error != "" {
		line += ": " + resp.Outcome.Error
	}
	fmt.Fprintln(&b, report.Visible(line))
	if len(resp.Output) > 0 {
		// JSON escapes a C0 control, not U+202E or U+FEFF.
		fmt.Fprintf(&b, "output: %s\n", report.Visible(string(resp.Output)))
	}
	if resp.Trace != nil {
		if steps == nil {
			steps = &Trace{}
			for _, s := range resp.Trace.Steps {
				steps.Add(s)
			}
		}
		fmt.Fprintf(&b, "trace (%s, %s):\n", resp.Trace.Level, report.Count(steps.n, "step"))
		b.WriteString(steps.rows.String())
	}
	_, err := w.Write(b.Bytes())
	return err
}

// Trace is the table of a Run's trace that Run prints, a row an entry,
// added as the Run hands each entry over: it holds the row's cells, not
// the entry, about 25 bytes a row of 20,000 steps, where their entries
// took 240.
type Trace struct {
	rows Table
	n    int
}

// Add adds the row of entry s.
func (t *Trace) Add(s pilotage.TraceStep) {
	if t.n == 0 {
		// Headed as plan's table is: "-" in a column says no calls or
		// no decisions only once the column is named.
		t.rows.Row("  STEP", "STATUS", "CALLS", "DECISIONS")
	}
	t.n++
	took := make([]string, len(s.Decisions))
	for i, d := range s.Decisions {
		took[i] = d.Took
	}
	// "-" for no decisions, as for no calls: the table's rows read
	// alike, a blank cell in none.
	t.rows.Row("  "+s.ID, s.Outcome.Status, dash(strings.Join(s.Calls, ",")), dash(strings.Join(took, " ")))
}

// Program prints a text program with the id of each step beside the
// line its statement starts on: a Host shows a text-valued program
// alongside its plan (§7), and ids the Language generated (§3.4) are
// read there. A program the Language's syntax does not read prints
// nothing.
func Program(w io.Writer, src []byte, lang *language.Language) error {
	parsed, err := syntax.For(lang).Parse(src, lang.Limits.WithDefaults().Depth)
	if err != nil || !pilotage.Valid(parsed.Diagnostics) {
		return nil
	}
	ids := map[int][]string{}
	program.Walk(parsed.Program.Steps, func(s *program.Step) {
		at, _ := parsed.Span(pilotage.Diagnostic{Path: pilotage.PointerPath(s.Pointer(&lang.Grammar))})
		ids[at.Line] = append(ids[at.Line], s.ID)
	})
	lines := strings.Split(strings.TrimRight(string(src), "\n"), "\n")
	width := 1
	for _, l := range ids {
		if n := len(strings.Join(l, ", ")); n <= MaxColumn {
			width = max(width, n)
		}
	}
	var b strings.Builder
	b.WriteString("program:\n")
	for i, line := range lines {
		fmt.Fprintf(&b, "%*d  %-*s | %s\n", len(strconv.Itoa(len(lines))), i+1, width, report.Visible(dash(strings.Join(ids[i+1], ", "))), report.Visible(strings.TrimRight(line, "\r")))
	}
	_, err = io.WriteString(w, b.String())
	return err
}

// MaxColumn caps how wide a padded column grows: a program's step ids
// (and a Language's entry ids) are as long as their author wrote them,
// and a table padded every row to one 300,000-byte id was a thousand
// times its input. A cell wider than the cap is written clipped
// (report.Clip, as replay's text and the pictures quote ids), followed
// by the gap, and does not widen its column: the rows around it keep the
// width of the others. --format json has every id whole.
const MaxColumn = 40

// Table is a text table built a row at a time, laid out as columns two
// spaces apart, each padded to its widest cell of at most MaxColumn
// characters; the last cell of a row is not padded. Where no cell is
// wider the bytes are those of text/tabwriter (padding 2, spaces), which
// the tables were written with. Its cells are kept as they are shown, in
// one buffer, each followed by cellEnd and each row by rowEnd, bytes
// report.Visible escapes in any cell: a row of strings took 88 bytes
// more a row than its text.
type Table struct {
	text []byte
}

const (
	cellEnd = 0
	rowEnd  = 1
)

// Row adds a row of cells. A cell quotes the program (a step id) or the
// Language (an entry id): escaped as every text report escapes what it
// quotes, so an ESC or a U+202E in an id reaches the terminal as \x1b or
// \u202e, and a tab or a newline, which the table's layout is made of,
// as \x09 or \x0a (report.OneLine).
func (t *Table) Row(cells ...string) {
	t.text = append(appendCells(t.text, cells), rowEnd)
}

// appendCells appends cells to b as a Table keeps them, each shown as it
// is quoted and followed by cellEnd.
func appendCells(b []byte, cells []string) []byte {
	for _, c := range cells {
		b = append(append(b, report.OneLine(report.Clip(c))...), cellEnd)
	}
	return b
}

// WriteRows writes n rows, row(i) giving the cells of each, laid out as
// a Table lays them out, without keeping them: it asks for each row
// twice, once for the columns' widths and once to write it.
func WriteRows(w io.Writer, n int, row func(i int) []string) error {
	var widths []int
	var cells []byte
	for i := range n {
		cells = appendCells(cells[:0], row(i))
		widths = measure(widths, cells)
	}
	b := bufio.NewWriter(w)
	for i := range n {
		cells = appendCells(cells[:0], row(i))
		writeRow(b, widths, cells)
	}
	return b.Flush()
}

// rows calls f with each row's cells, each cell's text ending at
// its cellEnd.
func (t *Table) rows(f func(cells []byte)) {
	for rest := t.text; len(rest) > 0; {
		end := bytes.IndexByte(rest, rowEnd)
		f(rest[:end])
		rest = rest[end+1:]
	}
}

func (t *Table) String() string {
	var widths []int
	t.rows(func(cells []byte) { widths = measure(widths, cells) })
	var b strings.Builder
	b.Grow(len(t.text))
	t.rows(func(cells []byte) { writeRow(&b, widths, cells) })
	return b.String()
}

// measure widens widths, the columns', to a row's cells.
func measure(widths []int, cells []byte) []int {
	for i := 0; ; i++ {
		end := bytes.IndexByte(cells, cellEnd)
		if end == len(cells)-1 {
			return widths // the last cell is not padded
		}
		if i == len(widths) {
			widths = append(widths, 0)
		}
		if n := utf8.RuneCount(cells[:end]); n <= MaxColumn {
			widths[i] = max(widths[i], n)
		}
		cells = cells[end+1:]
	}
}

// writeRow writes a row's cells, padded to widths, and its newline.
func writeRow(b interface {
	io.Writer
	io.StringWriter
	io.ByteWriter
}, widths []int, cells []byte) {
	for i := 0; ; i++ {
		end := bytes.IndexByte(cells, cellEnd)
		b.Write(cells[:end])
		if end == len(cells)-1 {
			break
		}
		b.WriteString(strings.Repeat(" ", max(widths[i]-utf8.RuneCount(cells[:end]), 0)+2))
		cells = cells[end+1:]
	}
	b.WriteByte('\n')
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
