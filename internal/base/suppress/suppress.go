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
	"github.com/pilotage-dev/pilotage/internal/base/ruleset"
)

// Marker starts a suppression comment, after the "#".
const Marker = "pilotage:ignore"

// category groups the rules of suppressions in --list-rules and the docs.
const category = "suppression"

// Layout is where each rule of suppressions lives, found from its ID
// alone (docs/design.md, "Rules"): its code file here, its section of
// docs/config.md, and its fixture, a PDL file linted in pdllint's tests
// (suppressions need the PDL parser, which sits above this package).
var Layout = ruleset.Layout{Code: "internal/base/suppress/%s.go", Doc: "docs/config.md#%s", Fixture: "workbench/pdllint/testdata/suppress/%s.txtar"}

// registry holds the rules of suppressions; each rule file registers its own.
var registry = ruleset.New[*report.RuleInfo](Layout)

// Rules describes the findings Apply adds, for --list-rules, --disable,
// sarif and pilotage.yaml's rules.
func Rules() []report.RuleInfo { return registry.Infos() }

// IsRule reports whether id names a rule of suppressions.
func IsRule(id string) bool {
	_, ok := registry.Lookup(id)
	return ok
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
	// At is the comment, Width its length in columns (0 when unknown),
	// which findings on it underline.
	At    report.Location
	Width int
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

// Options of Apply.
type Options struct {
	// Known lists the rule IDs a directive may name.
	Known []string
	// Disabled are the rules --disable turned off: a rule of suppressions
	// among them raises no finding, and a directive naming one of the
	// others is not reported unused, since that rule did not run.
	Disabled map[string]bool
}

// Apply marks the findings of rep that a directive or an external entry
// covers (both when both do), adds the findings of the rules of
// suppressions (a malformed directive, one without a reason, which
// suppresses nothing, each rule of a directive that suppressed nothing)
// and recounts the summary. A rule that did not run on a directive's file
// (Options.Disabled, rep.NotRun) is never reported unused.
func Apply(rep *report.Report, directives []Directive, external []External, opt Options) {
	var added []report.Finding
	raise := func(fs ...report.Finding) {
		for _, f := range fs {
			if !opt.Disabled[f.Rule] {
				added = append(added, f)
			}
		}
	}
	for i := range directives {
		d := &directives[i]
		if f, bad := checkSyntax(d, opt.Known); bad {
			raise(f)
		} else if f, bad := checkReason(d); bad {
			raise(f)
		}
	}
	used := make([]map[string]bool, len(directives))
	for fi := range rep.Findings {
		f := &rep.Findings[fi]
		for i := range directives {
			d := &directives[i]
			if !d.applies() || !slices.Contains(d.Rules, f.Rule) || !d.covers(*f) {
				continue
			}
			if used[i] == nil {
				used[i] = map[string]bool{}
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
		raise(checkUnused(d, used[i], func(id string) bool {
			return !opt.Disabled[id] && !slices.Contains(rep.NotRun[d.At.File], id)
		})...)
	}
	rep.Findings = append(rep.Findings, added...)
	rep.Recount()
	if len(added) > 0 {
		rep.Order()
	}
}

// applies reports whether d suppresses findings: it is well-formed and
// says why.
func (d *Directive) applies() bool { return d.Problem == "" && d.Reason != "" }

// finding is a finding of rule (one of this package's) at d.
func finding(d *Directive, rule, msg, hint string) report.Finding {
	r, _ := registry.Lookup(rule)
	f := report.Finding{Rule: rule, Section: r.Section, Severity: r.Severity, Message: msg, Hint: hint,
		File: d.At.File, Line: d.At.Line, Column: d.At.Column}
	if d.Width > 0 {
		f.EndLine, f.EndColumn = d.At.Line, d.At.Column+d.Width
	}
	return f
}
