package config

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// Effective is the configuration a verb runs with, every value with
// where it came from, as `pilotage config show` prints it.
type Effective struct {
	// File is the configuration file, "" for none; Found says whether it
	// was found from the working directory (else --config named it).
	File      string          `json:"file"`
	Found     bool            `json:"found,omitempty"`
	Defaults  []Setting       `json:"defaults"`
	Rules     []Setting       `json:"rules"`
	Ignore    []Setting       `json:"ignore"`
	Overrides []ShownOverride `json:"overrides"`
	Suppress  []ShownSuppress `json:"suppress"`
	Languages []Setting       `json:"languages"`
}

// Setting is one value and its origin ("pilotage.yaml:3:5", "--strict",
// "default").
type Setting struct {
	Key   string `json:"key"`
	Value string `json:"value"`
	From  string `json:"from"`
}

// ShownOverride is an override with its patterns and severities.
type ShownOverride struct {
	Files []string  `json:"files"`
	Rules []Setting `json:"rules"`
	From  string    `json:"from"`
}

// ShownSuppress is a suppress entry.
type ShownSuppress struct {
	Files  []string `json:"files"`
	Rules  []string `json:"rules"`
	Reason string   `json:"reason"`
	From   string   `json:"from"`
}

// Effective lists the configuration with every rule of rules (its
// configured severity, or its own as default); found says the file was
// found rather than named.
func (c *Config) Effective(rules []report.RuleInfo, found bool) *Effective {
	e := &Effective{File: c.File, Found: found && c.File != "", Defaults: []Setting{}, Rules: []Setting{}, Ignore: []Setting{},
		Overrides: []ShownOverride{}, Suppress: []ShownSuppress{}, Languages: []Setting{}}
	str := func(key string, s String, def string) {
		v := s.Value
		if s.From == (Origin{}) {
			v = def
		}
		e.Defaults = append(e.Defaults, Setting{key, v, s.From.String()})
	}
	str("format", c.Defaults.Format, "text")
	e.Defaults = append(e.Defaults, Setting{"strict", fmt.Sprint(c.Defaults.Strict.Value), c.Defaults.Strict.From.String()})
	str("baseline", c.Defaults.Baseline, "")
	sort.Slice(rules, func(i, j int) bool { return rules[i].ID < rules[j].ID })
	for _, r := range rules {
		s := Setting{r.ID, string(r.Severity), "default"}
		if set, ok := c.Rules[r.ID]; ok {
			s.Value, s.From = set.Severity, set.From.String()
		}
		e.Rules = append(e.Rules, s)
	}
	for _, p := range c.Ignore {
		e.Ignore = append(e.Ignore, Setting{"", p.Glob, p.From.String()})
	}
	for _, o := range c.Overrides {
		so := ShownOverride{Files: globs(o.Files), Rules: []Setting{}, From: o.From.String()}
		for _, id := range slices.Sorted(maps.Keys(o.Rules)) {
			so.Rules = append(so.Rules, Setting{id, o.Rules[id].Severity, o.Rules[id].From.String()})
		}
		e.Overrides = append(e.Overrides, so)
	}
	for _, s := range c.Suppress {
		ids := make([]string, len(s.Rules))
		for i, r := range s.Rules {
			ids[i] = r.ID
		}
		e.Suppress = append(e.Suppress, ShownSuppress{Files: globs(s.Files), Rules: ids, Reason: s.Reason, From: s.From.String()})
	}
	for _, l := range c.Languages {
		e.Languages = append(e.Languages, Setting{strings.Join(globs(l.Files), " "), l.Lang, l.From.String()})
	}
	return e
}

func globs(ps []Pattern) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Glob
	}
	return out
}

// WriteJSON writes e as indented JSON.
func (e *Effective) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(e)
}

// WriteText writes e as aligned sections, each value followed by its
// origin.
func (e *Effective) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	switch {
	case e.File == "":
		fmt.Fprintf(tw, "config file:\tnone (no %s in the working directory or its parents); every value is the default\n", FileName)
	case e.Found:
		fmt.Fprintf(tw, "config file:\t%s (found from the working directory)\n", e.File)
	default:
		fmt.Fprintf(tw, "config file:\t%s (--config)\n", e.File)
	}
	fmt.Fprintln(tw, "\ndefaults:\tVALUE\tFROM")
	for _, s := range e.Defaults {
		v := s.Value
		if v == "" {
			v = "(none)"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", s.Key, v, s.From)
	}
	fmt.Fprintln(tw, "\nrules:\tSEVERITY\tFROM")
	for _, s := range e.Rules {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", s.Key, s.Value, s.From)
	}
	if len(e.Overrides) > 0 {
		fmt.Fprintln(tw, "\noverrides (the last matching entry wins):")
		for _, o := range e.Overrides {
			fmt.Fprintf(tw, "  files %s\t\t%s\n", strings.Join(o.Files, " "), o.From)
			for _, s := range o.Rules {
				fmt.Fprintf(tw, "    %s\t%s\t%s\n", s.Key, s.Value, s.From)
			}
		}
	}
	if len(e.Ignore) > 0 {
		fmt.Fprintln(tw, "\nignore:")
		for _, s := range e.Ignore {
			fmt.Fprintf(tw, "  %s\t\t%s\n", s.Value, s.From)
		}
	}
	if len(e.Suppress) > 0 {
		fmt.Fprintln(tw, "\nsuppress:")
		for _, s := range e.Suppress {
			fmt.Fprintf(tw, "  files %s rules %s\t\t%s\n    reason: %s\n", strings.Join(s.Files, " "), strings.Join(s.Rules, ","), s.From, s.Reason)
		}
	}
	if len(e.Languages) > 0 {
		fmt.Fprintln(tw, "\nlanguages (the first matching entry wins):")
		for _, s := range e.Languages {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", s.Key, s.Value, s.From)
		}
	}
	return tw.Flush()
}
