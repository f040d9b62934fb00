// Package config reads pilotage.yaml, a project's record of which rules
// apply where, at what severity and why an exception is acceptable, and
// resolves it into the settings the verbs take; lint, replay and the
// workbench receive those settings and never read the file themselves.
package config

import (
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/pilotage-dev/pilotage/internal/base/inputs"
	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// FileName is the configuration file looked for from the working
// directory upwards.
const FileName = "pilotage.yaml"

// MaxSize bounds the file read: a pilotage.yaml is a few hundred lines,
// and a YAML tree costs a hundred times its text, so the limit keeps a
// hostile or mistaken file (a log renamed, a generated monster) from
// costing more than a few megabytes.
const MaxSize = 64 << 10

// Severities a rule can be set to; off turns the rule off.
const (
	Off     = "off"
	Info    = "info"
	Warning = "warning"
	Error   = "error"
)

// Origin is where a setting came from: a place in the file, or (the
// zero Origin) the built-in default.
type Origin struct {
	File         string
	Line, Column int
}

// String is the origin as `config show` prints it: "pilotage.yaml:3:5"
// or "default".
func (o Origin) String() string {
	if o.File != "" {
		return fmt.Sprintf("%s:%d:%d", o.File, o.Line, o.Column)
	}
	return "default"
}

// RuleSetting is a rule's severity and where it was set.
type RuleSetting struct {
	Severity string
	From     Origin
}

// Pattern is one path pattern (pathglob syntax), relative to the
// directory of the file that holds it.
type Pattern struct {
	Glob string
	From Origin
}

// Override sets rule severities for the files its patterns match.
type Override struct {
	Files []Pattern
	Rules map[string]RuleSetting
	From  Origin
}

// RuleRef is a rule ID as the file writes it, with its place.
type RuleRef struct {
	ID   string
	From Origin
}

// Suppression marks the findings of its rules in the files its patterns
// match as suppressed, for the reason given (files without comments).
type Suppression struct {
	Files  []Pattern
	Rules  []RuleRef
	Reason string
	From   Origin
}

// LangBinding names the PDL file of the Language that program files
// matching its patterns are written in.
type LangBinding struct {
	Files []Pattern
	// Lang is the PDL file, as written (relative to the config's Dir).
	Lang string
	From Origin
}

// String is a setting of type string with its origin.
type String struct {
	Value string
	From  Origin
}

// Bool is a setting of type bool with its origin.
type Bool struct {
	Value bool
	From  Origin
}

// Defaults are the checking verbs' flag defaults.
type Defaults struct {
	Format   String
	Strict   Bool
	Baseline String
}

// Config is a parsed pilotage.yaml; the zero Config (no file) changes
// nothing.
type Config struct {
	// File is the file's name as found or given; "" when there is none.
	File string
	// Dir is the absolute directory the file's patterns and paths are
	// relative to; the working directory when there is no file.
	Dir       string
	Rules     map[string]RuleSetting
	Ignore    []Pattern
	Overrides []Override
	Suppress  []Suppression
	Defaults  Defaults
	Languages []LangBinding
	// rels caches each file's path relative to Dir (rel).
	rels sync.Map
	// src is the file's text, for the snippets of CheckRules.
	src []byte
}

// Find looks for FileName in dir and each of its parents and returns the
// first found, or "" when there is none.
func Find(dir string) (string, error) {
	names, err := Candidates(dir)
	if err != nil {
		return "", err
	}
	for _, name := range names {
		st, err := os.Stat(name)
		if err == nil && !st.IsDir() {
			// Found, not named: a named pipe would block the open.
			if !st.Mode().IsRegular() {
				return "", &inputs.NotRegularError{Name: name, Mode: st.Mode()}
			}
			return name, nil
		}
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
	}
	return "", nil
}

// Candidates are the files Find looks at for dir, in its order: FileName
// in dir and in each of its parents, as absolute paths. A watcher
// watches them all, so a file created where Find would find it counts.
func Candidates(dir string) ([]string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for {
		names = append(names, filepath.Join(dir, FileName))
		parent := filepath.Dir(dir)
		if parent == dir {
			return names, nil
		}
		dir = parent
	}
}

// Shown is the absolute path name as messages name it, as the user
// would: relative to the working directory (pilotage.yaml,
// ../pilotage.yaml), or name itself when that cannot be said.
func Shown(name string) string {
	wd, err := filepath.Abs(".")
	if err != nil {
		return name
	}
	if r, err := filepath.Rel(wd, name); err == nil {
		return r
	}
	return name
}

// Load reads and parses the file name, reading at most MaxSize+1 bytes,
// its rule IDs checked against known as Parse checks them.
func Load(name string, known ...string) (*Config, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, fmt.Errorf("%s is a directory; --config takes the file, %s", name, FileName)
	}
	src, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return nil, err
	}
	return Parse(name, src, known...)
}

// Resolve loads the configuration a verb runs with: the file explicit
// names (--config), else the one Find finds from dir, else none (an
// empty Config relative to dir); its rule IDs are checked against known
// as Parse checks them.
func Resolve(explicit, dir string, known ...string) (*Config, error) {
	name := explicit
	if name == "" {
		var err error
		if name, err = Find(dir); err != nil {
			return nil, err
		}
		if name != "" {
			name = Shown(name)
		}
	}
	if name == "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, err
		}
		return &Config{Dir: abs}, nil
	}
	return Load(name, known...)
}

// Diagnostic is one problem in the file, at its line and column.
type Diagnostic struct {
	File         string
	Line, Column int
	Message      string
	// Snippet shows the line with the subject underlined (report.Snippet).
	Snippet string
	Hint    string
}

func (d *Diagnostic) Error() string {
	s := fmt.Sprintf("%s:%d:%d: %s", d.File, d.Line, d.Column, d.Message)
	if d.Snippet != "" {
		s += "\n" + strings.TrimSuffix(d.Snippet, "\n")
	}
	if d.Hint != "" {
		s += "\n  hint: " + d.Hint
	}
	return s
}

// Diagnostics are every problem found in the file, in file order.
type Diagnostics []*Diagnostic

// MaxDiagnostics bounds the problems printed for one file: a file that
// is not pilotage.yaml at all would otherwise flood the terminal.
const MaxDiagnostics = 20

// show gives each diagnostic the snippet of its place in src; only
// those printed, so a file of many problems costs no more.
func (ds Diagnostics) show(src []byte) {
	for _, d := range ds[:min(len(ds), MaxDiagnostics)] {
		d.Snippet = report.Snippet(src, d.Line, d.Column)
	}
}

func (ds Diagnostics) Error() string { return strings.Join(ds.Messages(), "\n") }

// Messages are the problems as printed, each with its snippet and hint:
// at most MaxDiagnostics, then one saying how many more there are.
func (ds Diagnostics) Messages() []string {
	out := make([]string, 0, min(len(ds), MaxDiagnostics)+1)
	for _, d := range ds[:min(len(ds), MaxDiagnostics)] {
		out = append(out, d.Error())
	}
	if n := len(ds) - MaxDiagnostics; n > 0 {
		out = append(out, fmt.Sprintf("%s: %d more problems not shown", ds[0].File, n))
	}
	return out
}

//go:embed schema.json
var schemaJSON []byte

// Schema is the JSON Schema of pilotage.yaml (`pilotage config schema`).
func Schema() []byte { return schemaJSON }
