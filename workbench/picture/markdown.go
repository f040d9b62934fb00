package picture

import (
	"fmt"
	"io"
	"strings"

	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// Markdown bounds: GitHub cuts a job summary at 1 MiB and draws no
// Mermaid graph beyond its own limits (500 edges, 50,000 characters), so
// large plans and batches are summarised instead of listed.
const (
	mdMaxGraphNodes = 120
	mdMaxSteps      = 200
	mdMaxTraces     = 100
	mdMaxFindings   = 200
	mdMaxCell       = 300
)

// WriteMarkdown writes the report as GitHub-flavoured Markdown for
// $GITHUB_STEP_SUMMARY or a PR comment: the plan as a Mermaid graph with
// the traces over it, then tables. Long lists are cut with a line saying
// how many were left out, so the summary stays far below GitHub's 1 MiB.
func (p *Page) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s\n\n", mdText(p.Title))
	fmt.Fprintf(&b, "**%s, %s** over %s and %s.\n\n", report.Count(p.Errors, "error"), report.Count(p.Warnings, "warning"), report.Count(len(p.Traces), "trace"), report.Count(p.Entries, "entry"))
	if len(p.graph.Nodes) <= mdMaxGraphNodes {
		b.WriteString("```mermaid\n")
		b.WriteString(mermaidText(layout(p.graph)))
		b.WriteString("```\n\n")
		b.WriteString("Thick blue edges: the path the Runs took; dotted: arms no Run took; red dashed: an arm not chosen whose steps ran anyway; grey boxes never ran; red outline: findings.\n\n")
	} else {
		fmt.Fprintf(&b, "The plan has %s, more than a Mermaid graph on GitHub can draw; the HTML report (`--format html`) draws it.\n\n", report.Count(len(p.graph.Nodes), "step"))
	}
	b.WriteString("### Steps\n\n| step | kind | risk | ran | status | time | arms | findings |\n|---|---|---|---|---|---|---|---|\n")
	for i, s := range p.Steps {
		if i == mdMaxSteps {
			fmt.Fprintf(&b, "\n… and %d more steps.\n", len(p.Steps)-mdMaxSteps)
			break
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s | %s | %d |\n", mdCode(s.ID), s.Kind, mdText(s.Risk), s.Ran, mdText(s.Status), s.Time, mdText(s.Arms), len(s.Findings))
	}
	b.WriteString("\n### Traces\n\n| run status | traces | findings |\n|---|---|---|\n")
	for _, g := range p.Outcomes {
		fmt.Fprintf(&b, "| %s | %d | %d |\n", mdText(g.Name), g.Traces, g.Findings)
	}
	if len(p.Rules) > 0 {
		b.WriteString("\n| rule | § | findings | traces |\n|---|---|---|---|\n")
		for _, g := range p.Rules {
			fmt.Fprintf(&b, "| %s | %s | %d | %d |\n", g.Name, g.Section, g.Findings, g.Traces)
		}
	}
	b.WriteString("\n| trace | run_id | outcome | entries | time | errors | warnings |\n|---|---|---|---|---|---|---|\n")
	for i, t := range p.Traces {
		if i == mdMaxTraces {
			fmt.Fprintf(&b, "\n… and %d more traces, counted in the tables above.\n", len(p.Traces)-mdMaxTraces)
			break
		}
		fmt.Fprintf(&b, "| `%s` | `%s` | %s | %d | %s | %d | %d |\n", mdCode(t.File), mdCode(t.RunID), mdText(t.OutcomeText()), t.Entries, t.TimeText(), t.Errors, t.Warnings)
	}
	var all []FindingView
	for _, s := range p.Steps {
		for _, f := range s.Findings {
			f.Message = "step `" + mdCode(s.ID) + "`: " + mdText(f.Message)
			all = append(all, f)
		}
	}
	for _, f := range p.General {
		f.Message = mdText(f.Message)
		all = append(all, f)
	}
	if len(all) > 0 {
		b.WriteString("\n### Findings\n\n")
		for i, f := range all {
			if i == mdMaxFindings {
				fmt.Fprintf(&b, "\n… and %d more findings; run pilotage replay for the full list.\n", len(all)-mdMaxFindings)
				break
			}
			fmt.Fprintf(&b, "- **%s** `%s` (§%s) at `%s`: %s\n", f.Severity, f.Rule, f.Section, mdCode(f.Loc), f.Message)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mdText makes s safe in a Markdown table cell: pipes escaped, markup
// and line breaks neutralised, long values cut.
func mdText(s string) string {
	s = cut(s)
	return escape(s, func(r rune) string {
		switch r {
		case '|':
			return `\|`
		case '<':
			return "&lt;"
		case '>':
			return "&gt;"
		case '&':
			return "&amp;"
		case '*', '_', '[', ']', '`', '\\', '#', '!':
			return `\` + string(r)
		case '\n':
			return " "
		}
		return ""
	})
}

// mdCode makes s safe inside a code span in a table: a backquote would
// end the span and a pipe the cell.
func mdCode(s string) string {
	return escape(cut(s), func(r rune) string {
		switch r {
		case '`':
			return "'"
		case '|':
			return `\|`
		case '\n':
			return " "
		}
		return ""
	})
}

func cut(s string) string { return cutLine(s, mdMaxCell) }
