// Package progtext writes the validate, plan and execute responses (§6.4,
// §6.5) as the text pilotage validate, plan and run print: diagnostics
// placed in the program's files, the plan as a table of steps, the Run
// with its output and trace.
package progtext

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

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

// Diagnostics prints diagnostics the way lint prints findings.
func Diagnostics(w io.Writer, diags []pilotage.Diagnostic, files *Files, color bool) error {
	rep := &report.Report{Tool: "pilotage validate", Sources: files.Sources, Files: []string{files.Program}}
	rep.Add(progdiag.Findings(diags, files.Docs)...)
	rep.Summary.Files = 1
	return report.Write(w, report.Text, rep, report.Options{Color: color})
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
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STEP\tKIND\tRISK\tCALLS\tINSIDE")
	for _, s := range pl.Steps {
		inside := "-"
		switch {
		case s.Arm != nil:
			inside = fmt.Sprintf("%s arm %s", s.Arm.Branch, s.Arm.Label)
		case s.Loop != "":
			inside = "loop " + s.Loop
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", s.ID, s.Kind, dash(s.Risk), dash(strings.Join(s.Calls, ",")), inside)
	}
	if err := tw.Flush(); err != nil {
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
// disk) is one error returned, not a line lost unseen.
func Run(w io.Writer, resp *pilotage.ExecuteResponse, files *Files, color bool) error {
	var b bytes.Buffer
	if len(resp.Diagnostics) > 0 {
		if err := Diagnostics(&b, resp.Diagnostics, files, color); err != nil {
			return err
		}
	}
	line := fmt.Sprintf("run %s: %s", resp.RunID, resp.Outcome.Status)
	if resp.Outcome.Error != "" {
		line += ": " + resp.Outcome.Error
	}
	fmt.Fprintln(&b, line)
	if len(resp.Output) > 0 {
		fmt.Fprintf(&b, "output: %s\n", resp.Output)
	}
	if resp.Trace != nil {
		fmt.Fprintf(&b, "trace (%s, %s):\n", resp.Trace.Level, report.Count(len(resp.Trace.Steps), "step"))
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		for _, s := range resp.Trace.Steps {
			took := make([]string, len(s.Decisions))
			for i, d := range s.Decisions {
				took[i] = d.Took
			}
			// "-" for no decisions, as for no calls: an empty last cell left
			// the line ending in tabwriter's padding.
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", s.ID, s.Outcome.Status, dash(strings.Join(s.Calls, ",")), dash(strings.Join(took, " ")))
		}
		tw.Flush()
	}
	_, err := w.Write(b.Bytes())
	return err
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
		at, _ := parsed.Span(pilotage.Diagnostic{Path: pilotage.PointerPath(s.Pointer)})
		ids[at.Line] = append(ids[at.Line], s.ID)
	})
	lines := strings.Split(strings.TrimRight(string(src), "\n"), "\n")
	width := 1
	for _, l := range ids {
		width = max(width, len(strings.Join(l, ", ")))
	}
	var b strings.Builder
	b.WriteString("program:\n")
	for i, line := range lines {
		fmt.Fprintf(&b, "%*d  %-*s | %s\n", len(strconv.Itoa(len(lines))), i+1, width, dash(strings.Join(ids[i+1], ", ")), strings.TrimRight(line, "\r"))
	}
	_, err = io.WriteString(w, b.String())
	return err
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
