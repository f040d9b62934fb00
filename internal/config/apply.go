package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pilotage-dev/pilotage/internal/base/pathglob"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/base/suggest"
	"github.com/pilotage-dev/pilotage/internal/base/suppress"
)

// unknownRules reports every rule ID of refs that is not in known (the
// rules of lint, replay, conform and the suppressions), at its place,
// with the nearest known ID.
func unknownRules(refs []ruleRef, known []string) Diagnostics {
	var ds Diagnostics
	for _, r := range refs {
		if slices.Contains(known, r.id) {
			continue
		}
		d := &Diagnostic{File: r.at.File, Line: r.at.Line, Column: r.at.Column, Message: fmt.Sprintf("unknown rule %q", report.Clip(r.id)),
			Hint: "list the rules with pilotage lint --list-rules, pilotage replay --list-rules or pilotage conform --list-rules"}
		if near := suggest.Closest(r.id, known); near != "" {
			d.Message += fmt.Sprintf(" (did you mean %q?)", near)
		}
		ds = append(ds, d)
	}
	return ds
}

// rel is file relative to the configuration's directory, slash-separated,
// for matching; ok is false for standard input and files outside it.
// Answers are kept: a report asks once per finding, of a few files.
func (c *Config) rel(file string) (string, bool) {
	if r, ok := c.rels.Load(file); ok {
		return r.(string), r.(string) != ""
	}
	r := c.relOf(file)
	c.rels.Store(file, r)
	return r, r != ""
}

func (c *Config) relOf(file string) string {
	if file == "-" || file == "" {
		return ""
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return ""
	}
	r, err := filepath.Rel(c.Dir, abs)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return ""
	}
	return filepath.ToSlash(r)
}

// matches reports whether one of ps matches file.
func (c *Config) matches(ps []Pattern, file string) bool {
	if len(ps) == 0 {
		// Nothing to match: the file's name is not worth keeping (a walk
		// of 20,000 files kept 4 MB of them).
		return false
	}
	r, ok := c.rel(file)
	if !ok {
		return false
	}
	return slices.ContainsFunc(ps, func(p Pattern) bool { return pathglob.Match(p.Glob, r) })
}

// matcher is matches for ps, remembering each file's answer: a report
// asks once per finding, of a few files.
func (c *Config) matcher(ps []Pattern) func(file string) bool {
	seen := map[string]bool{}
	return func(file string) bool {
		m, ok := seen[file]
		if !ok {
			m = c.matches(ps, file)
			seen[file] = m
		}
		return m
	}
}

// Ignored reports whether the file's ignore patterns match path, which a
// verb then leaves out of a directory walk or glob expansion.
func (c *Config) Ignored(path string) bool { return c.matches(c.Ignore, path) }

// Severity is the severity the configuration gives rule in file and
// where that was set: the last matching override's, else rules', else ""
// (the rule's own).
func (c *Config) Severity(rule, file string) RuleSetting {
	s := c.Rules[rule]
	for _, o := range c.Overrides {
		if o2, ok := o.Rules[rule]; ok && c.matches(o.Files, file) {
			s = o2
		}
	}
	return s
}

// LanguageFor is the PDL file of the Language the program file is
// written in, by the first languages entry whose patterns match it.
func (c *Config) LanguageFor(program string) (String, bool) {
	for _, l := range c.Languages {
		if c.matches(l.Files, program) {
			return String{Value: c.Path(l.Lang), From: l.From}, true
		}
	}
	return String{}, false
}

// CheckLang says, at its lang value, that the PDL file a languages entry
// names (l, from LanguageFor) cannot be read, so the verb that would load
// it tells where the name came from; nil when it can be.
func (c *Config) CheckLang(l String) error {
	// Stat, not open: opening a named pipe would block the verb.
	st, err := os.Stat(l.Value)
	var reason error
	switch {
	case err != nil:
		reason = err
		var pe *fs.PathError
		if errors.As(err, &pe) {
			reason = pe.Err
		}
	case st.IsDir():
		reason = errors.New("it is a directory")
	case !st.Mode().IsRegular():
		reason = errors.New("it is not a regular file")
	default:
		return nil
	}
	written := l.Value // as the file writes it, relative to its directory
	if abs, err := filepath.Abs(l.Value); err == nil {
		if r, err := filepath.Rel(c.Dir, abs); err == nil {
			written = r
		}
	}
	ds := Diagnostics{{File: l.From.File, Line: l.From.Line, Column: l.From.Column,
		Message: fmt.Sprintf("lang names %s, which cannot be read: %v", written, reason),
		Hint:    "lang is the PDL file of the Language, relative to the directory of " + filepath.Base(l.From.File)}}
	ds.show(c.src)
	return ds
}

// Path resolves a path the file writes (lang, baseline) against its
// directory, relative to the working directory when it can be, so
// messages show a short name.
func (c *Config) Path(p string) string {
	if filepath.IsAbs(p) || c.File == "" {
		return p
	}
	return Shown(filepath.Join(c.Dir, p))
}

// Apply options.
type Apply struct {
	// Inline finds the suppression comments of a source file the report
	// holds (pdl.Suppressions); nil for a verb whose inputs have none.
	Inline func(name string, src []byte) []suppress.Directive
	// NoSuppressions is --no-suppressions: every finding shows, and no
	// suppression is checked.
	NoSuppressions bool
	// Known lists the rule IDs a suppression comment may name.
	Known []string
	// Disabled are the rules the verb's --disable turned off, the rules
	// of suppressions among them (suppress.Options).
	Disabled map[string]bool
}

// Apply brings a verb's report under the configuration: it marks the
// findings that inline comments and suppress entries cover (reporting
// the comments without a reason or use), then gives each finding the
// severity its rule has for its file, dropping those of rules set to
// off, and recounts. rep is sorted (report.Sort) and stays so. Suppressions are matched first, so a comment on a
// finding of a rule set off is not reported unused.
func (c *Config) Apply(rep *report.Report, opt Apply) {
	if !opt.NoSuppressions {
		var dirs []suppress.Directive
		if opt.Inline != nil {
			// Only PDL carries comments; standard input may be PDL.
			for _, name := range rep.Files {
				if strings.HasSuffix(name, ".pdl") || name == "-" {
					dirs = append(dirs, opt.Inline(name, rep.Sources[name])...)
				}
			}
		}
		var ext []suppress.External
		for _, s := range c.Suppress {
			ids := make([]string, len(s.Rules))
			for i, r := range s.Rules {
				ids[i] = r.ID
			}
			ext = append(ext, suppress.External{Rules: ids, Reason: s.Reason, Match: c.matcher(s.Files),
				At: report.Location{File: s.From.File, Line: s.From.Line, Column: s.From.Column}})
		}
		suppress.Apply(rep, dirs, ext, suppress.Options{Known: opt.Known, Disabled: opt.Disabled})
	}
	type key struct{ rule, file string }
	memo := map[key]RuleSetting{}
	kept := rep.Findings[:0]
	for _, f := range rep.Findings {
		s, ok := memo[key{f.Rule, f.File}]
		if !ok {
			s = c.Severity(f.Rule, f.File)
			memo[key{f.Rule, f.File}] = s
		}
		switch s.Severity {
		case Off:
			continue
		case "":
		default:
			f.Severity = report.Severity(s.Severity)
		}
		kept = append(kept, f)
	}
	rep.Findings = kept
	rep.Recount()
}
