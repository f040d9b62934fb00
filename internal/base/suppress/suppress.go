// Package suppress reads `# pilotage:ignore RULE[,RULE] -- reason`
// comments and marks the findings they, or pilotage.yaml's suppress
// entries, cover as suppressed, reporting suppressions that lack a
// reason or suppress nothing.
package suppress

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/base/suggest"
)

// Marker starts a suppression comment, after the "#".
const Marker = "pilotage:ignore"

// The rules of suppressions themselves (docs/rules/<id>.md).
const (
	RuleSyntax = "suppression-syntax"
	RuleReason = "suppression-reason"
	RuleUnused = "unused-suppression"
)

const doc = "docs/config.md"

// Rules describes the findings Apply adds, for --list-rules, --disable
// and pilotage.yaml's rules.
var Rules = []report.RuleInfo{
	{ID: RuleSyntax, Category: "suppression", Section: "config.md", Severity: report.Error,
		Summary: "A pilotage:ignore comment must name known rules, comma-separated, then -- and a reason.", Doc: doc},
	{ID: RuleReason, Category: "suppression", Section: "config.md", Severity: report.Error,
		Summary: "A pilotage:ignore comment must say why after --; without a reason it suppresses nothing.", Doc: doc},
	{ID: RuleUnused, Category: "suppression", Section: "config.md", Severity: report.Warning,
		Summary: "A pilotage:ignore comment must suppress a finding of each rule it names.", Doc: doc},
}

// Comment is what a suppression comment says.
type Comment struct {
	Rules  []string
	Reason string
	// Problem, when not empty, says why the comment is malformed (no
	// rule, a bad rule ID); Reason is empty when it was left out.
	Problem string
}

var ruleID = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

// ParseComment reads a comment's text, "#" included. ok is false when it
// is not a suppression comment at all.
func ParseComment(text string) (c Comment, ok bool) {
	body := strings.TrimSpace(strings.TrimPrefix(text, "#"))
	rest, ok := strings.CutPrefix(body, Marker)
	if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '\t') {
		return Comment{}, false
	}
	list, reason, _ := strings.Cut(rest, "--")
	c.Reason = strings.TrimSpace(reason)
	if strings.TrimSpace(list) == "" {
		c.Problem = "no rule named"
		return c, true
	}
	for _, id := range strings.Split(list, ",") {
		id = strings.TrimSpace(id)
		switch {
		case id == "":
			c.Problem = "an empty rule in the list"
		case !ruleID.MatchString(id):
			c.Problem = fmt.Sprintf("%q is not a rule ID", id)
		default:
			c.Rules = append(c.Rules, id)
			continue
		}
		return c, true
	}
	return c, true
}

// Directive is a suppression comment in a file and the part of the file
// it covers: the statement on its line (trailing) or on the next line
// (alone), block included.
type Directive struct {
	Comment
	// At is the comment.
	At report.Location
	// Start and End bound what it covers: findings at a position p with
	// Start <= p < End (line, then column).
	Start, End report.Location
}

func (d *Directive) covers(f report.Finding) bool {
	if f.File != d.At.File || f.Line == 0 {
		return false
	}
	return !before(f.Line, f.Column, d.Start) && before(f.Line, f.Column, d.End)
}

func before(line, col int, l report.Location) bool {
	return line < l.Line || line == l.Line && col < l.Column
}

// External is a suppression given outside the file: an entry of
// pilotage.yaml's suppress.
type External struct {
	Rules  []string
	Reason string
	// Match reports whether the entry's patterns match a finding's file.
	Match func(file string) bool
	At    report.Location
}

// Apply marks the findings of rep that a directive or an external entry
// covers (both when both do), adds a finding for each malformed
// directive, each without a reason (which suppresses nothing) and each
// rule of a directive that suppressed nothing, and recounts the summary.
// known lists the rule IDs a directive may name.
func Apply(rep *report.Report, directives []Directive, external []External, known []string) {
	isKnown := map[string]bool{}
	for _, id := range known {
		isKnown[id] = true
	}
	used := make([]map[string]bool, len(directives))
	var added []report.Finding
	for i := range directives {
		d := &directives[i]
		used[i] = map[string]bool{}
		if d.Problem == "" {
			for _, id := range d.Rules {
				if !isKnown[id] {
					d.Problem = fmt.Sprintf("unknown rule %q", id)
					if near := suggest.Closest(id, known); near != "" {
						d.Problem += fmt.Sprintf(" (did you mean %q?)", near)
					}
					break
				}
			}
		}
		switch {
		case d.Problem != "":
			added = append(added, finding(d, RuleSyntax, report.Error, "malformed pilotage:ignore comment: "+d.Problem,
				"write # pilotage:ignore RULE[,RULE] -- reason, with the IDs --list-rules prints"))
		case d.Reason == "":
			added = append(added, finding(d, RuleReason, report.Error, "pilotage:ignore without a reason suppresses nothing",
				"say why the finding is acceptable after --: # pilotage:ignore "+strings.Join(d.Rules, ",")+" -- reason"))
		}
	}
	for fi := range rep.Findings {
		f := &rep.Findings[fi]
		for i := range directives {
			d := &directives[i]
			if d.Problem != "" || d.Reason == "" || !slices.Contains(d.Rules, f.Rule) || !d.covers(*f) {
				continue
			}
			used[i][f.Rule] = true
			f.Suppressions = append(f.Suppressions, report.Suppression{Kind: report.InSource, Justification: d.Reason, Location: d.At})
		}
		for _, e := range external {
			if slices.Contains(e.Rules, f.Rule) && e.Match(f.File) {
				f.Suppressions = append(f.Suppressions, report.Suppression{Kind: report.External, Justification: e.Reason, Location: e.At})
			}
		}
	}
	for i := range directives {
		d := &directives[i]
		if d.Problem != "" || d.Reason == "" {
			continue
		}
		for _, id := range d.Rules {
			if !used[i][id] {
				added = append(added, finding(d, RuleUnused, report.Warning,
					fmt.Sprintf("pilotage:ignore %s suppresses nothing: no %s finding in the statement it covers", id, id),
					"remove it, or move it to the statement the finding is on"))
			}
		}
	}
	rep.Findings = append(rep.Findings, added...)
	rep.Recount()
	if len(added) > 0 {
		rep.Order()
	}
}

func finding(d *Directive, rule string, sev report.Severity, msg, hint string) report.Finding {
	return report.Finding{Rule: rule, Section: "config.md", Severity: sev, Message: msg, Hint: hint,
		File: d.At.File, Line: d.At.Line, Column: d.At.Column}
}
