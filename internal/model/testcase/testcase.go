// Package testcase is the model of `pilotage test` case files: parsing
// them with the line of every value (docs/test.md), checking what a
// case expects against what the engine answered, and rewriting the
// expectations for --update.
package testcase

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/pilotage-dev/pilotage/internal/base/inputs"
	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/base/lru"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/base/suggest"
	"github.com/pilotage-dev/pilotage/internal/base/textenc"
	"github.com/pilotage-dev/pilotage/internal/base/yamlcost"
)

// File is one case file: the PDL its cases run against and the cases.
type File struct {
	Name string
	Src  []byte
	// PDL is the Language definition's path, resolved against the file's
	// directory; Language picks one Language of it ("" for its only one).
	PDL      string
	Language string
	// PDLAt is where the file gives pdl:, zero when it does not.
	PDLAt Place
	// LanguageAt is where the file gives language:, zero when it does not.
	LanguageAt Place
	// Cases are the cases of a file Parse read; one Read reads a case at
	// a time has none here (All gives every file's).
	Cases []*Case
	doc   *yaml.Node
	// items and p read a case at a time (Read, All): each case's text,
	// and the parser of the file's.
	items []span
	p     *parser
}

// Case is one test: a program, what it runs with, and what it expects.
type Case struct {
	Name string
	// NameAt is where the case gives name:, from the key to the value's
	// end.
	NameAt Place
	// Line and Col are where the case's mapping starts, its first key.
	Line, Col int
	Principal string
	// PrincipalAt is where the case gives principal:.
	PrincipalAt Place
	// Program is the program as the request carries it: JSON bytes, or a
	// JSON string for a text program (ProgramText set, Text true).
	Program     json.RawMessage
	ProgramText string
	Text        bool
	// ProgramAt is where the case gives program: or program_text:, the
	// key. TextAt is where the text of a program_text: | block starts,
	// line 1 column 1 of the program: zero when the text's lines and
	// columns are not the file's (a folded or quoted text).
	ProgramAt, TextAt Place
	// ProgramRef runs a promoted program by reference (§6.5.1) instead:
	// nothing is validated or planned, so only Run expectations apply.
	ProgramRef string
	// ProgramFile is the file the program was read from, "" inline.
	ProgramFile string
	// Quoted are the strings of an inline program that YAML read
	// quoted, by JSON Pointer: YAML takes their quotes, so `'milk'` is
	// the CEL milk, and an error there is placed at it (Check).
	Quoted         map[string]Quoted
	Input, Context json.RawMessage
	TraceLevel     string
	// TestRun asks a deploy-mode Language for a test run (§6.5.7).
	TestRun bool
	Stubs   []Stub
	Drift   *Drift
	Expect  Expect
	node    *yaml.Node
}

// Quoted is a string of an inline program written quoted in YAML: where,
// under which key ("" in a list), and its value, the quotes taken.
type Quoted struct {
	At         Place
	Key, Value string
}

// Stub replaces an entry's scripted behaviour for one case: a fixed
// output (Returns), a CEL expression over the call's input (Compute), or
// a failure with a step status (Fail, optionally When a CEL condition
// holds, with Message). Stubs of one entry are tried in order.
type Stub struct {
	Entry string
	// At is where the entry's id is written, the key under stubs:, where
	// a finding about the stub is placed.
	At Place
	// Call numbers a per-call stub (`calls:`) from 1: it is the entry's
	// whole behaviour for that call, the last one for every later call;
	// 0 is a stub for every call.
	Call    int
	Returns json.RawMessage
	Compute string
	Fail    string
	When    string
	Message string
	// FailAt, WhenAt and ComputeAt are where the stub writes its fail:,
	// when: and compute: values, where a finding about one is placed.
	FailAt, WhenAt, ComputeAt Place
}

// Drift is a catalog change made between plan and execute: the Run is
// sent with the plan's catalog_version, so it meets catalog_drift, or,
// for a promoted program whose baseline changed, promotion_drift.
type Drift struct {
	Line     int
	Remove   []string
	Describe map[string]string
	// Pin sends the plan's catalog_version with the Run (the default),
	// so any change is catalog_drift; `expected_catalog_version: false`
	// leaves it out, to reach a promoted program's promotion_drift.
	Pin bool
}

// Expect is what a case states; nil and empty members state nothing.
// Lines maps each stated key ("status", "output", …) to its line.
type Expect struct {
	Valid       *bool
	Diagnostics []DiagWant
	Plan        *PlanWant
	Status      string
	Output      json.RawMessage
	Trace       []TraceWant
	Narration   string
	// Blank are the keys given with no value: each fails until
	// --update writes what the engine answers.
	Blank []string
	Lines map[string]int
	// Cols holds the column of each stated value, beside Lines.
	Cols map[string]int
	// MaxRiskAt and RisksAt (by step id) are where plan: writes its risk
	// levels.
	MaxRiskAt Place
	RisksAt   map[string]Place
	// PlanBlank are the members of plan: given with no value (steps:,
	// max_risk:): as a blank key, each fails until --update fills it.
	PlanBlank []Member
	node      *yaml.Node
}

// Member is a member of an expectation, by name, and where its value is.
type Member struct {
	Name string
	At   Place
}

// expectKeys are the expectations, in the order docs/test.md lists
// them; runKeys, the last four, are those only a Run can meet.
var (
	expectKeys = []string{"valid", "diagnostics", "plan", "status", "output", "trace", "narration"}
	runKeys    = expectKeys[3:]
)

// NeedsRun reports whether c's valid program must be run: it states
// what only a Run answers (stated or left blank), or states nothing (the
// Run is then what it checks, and what --update writes), or sets a Run
// up (stubs, drift, a program reference, a test run). A case that states
// only validate's answer (valid, diagnostics, plan) is checked, not run:
// a Run of a large program is seconds of CPU that nothing it states
// would look at.
func (c *Case) NeedsRun() bool {
	if c.ProgramRef != "" || c.TestRun || c.Drift != nil || len(c.Stubs) > 0 || len(c.Expect.Lines) == 0 {
		return true
	}
	for _, k := range runKeys {
		if _, ok := c.Expect.Lines[k]; ok {
			return true
		}
	}
	return false
}

// DiagWant is one expected diagnostic: its code, its path (a JSON
// Pointer, or "LINE:COL" of a text range's start) and a substring of
// its message.
type DiagWant struct {
	Code    string `yaml:"code" json:"code"`
	Path    string `yaml:"path,omitempty" json:"path,omitempty"`
	Message string `yaml:"message,omitempty" json:"message,omitempty"`
}

// PlanWant is the expected plan: step ids in order, each step's risk,
// and max_risk.
type PlanWant struct {
	Steps   []string          `yaml:"steps,omitempty" json:"steps,omitempty"`
	Risks   map[string]string `yaml:"risks,omitempty" json:"risks,omitempty"`
	MaxRisk string            `yaml:"max_risk,omitempty" json:"max_risk,omitempty"`
}

// TraceWant is one expected trace entry: its id, status, the entries
// it called, and the arm or loop decision it took.
type TraceWant struct {
	ID     string   `yaml:"id" json:"id"`
	Status string   `yaml:"status,omitempty" json:"status,omitempty"`
	Calls  CallList `yaml:"calls,omitempty" json:"calls,omitzero"`
	Took   string   `yaml:"took,omitempty" json:"took,omitempty"`
}

// CallList is the entries a trace step called. Stated empty, `calls:
// []` says the step called none; nil, it is not stated.
type CallList []string

// IsZero reports whether the list is not stated: YAML's omitempty and
// JSON's omitzero leave out only that, so --update writes a stated
// `calls: []` back.
func (c CallList) IsZero() bool { return c == nil }

// Error is a case file that does not say what it means, at its line.
// It may be in a file a case names instead (an input that is not JSON):
// Src is then that file's text, for a report to quote, and Named where
// the case file names it; both are zero for an error in the case file.
type Error struct {
	File      string
	Line, Col int
	// EndCol is the column past the value on Line, 0 when unknown.
	EndCol    int
	Msg, Hint string
	Src       []byte
	Named     Place
	// More are the file's other errors, in its order, when reading went
	// on past this one (docs/test.md: a run names them all, up to 20).
	More []*Error
	// Partial is the file as far as it read, on the first of the errors
	// of a file Parse read through whose PDL is known: its cases, each
	// with what its keys said (no Program when it could not be read).
	// Checking their values against the PDL needs no program, so a run
	// names what is wrong there too (langtest.Runner.Broken).
	Partial *File
}

// Place is a position in a file: of a value in a case file, End is the
// column past it when it is written on one line (0 when unknown).
type Place struct {
	File           string
	Line, Col, End int
}

func (e *Error) Error() string { return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg) }

// MaxFile bounds a case file's size: a corpus is written by hand (the
// largest of this repository is 8 KB), or generated, and then better
// split into files that each say what they test. go-yaml's node tree
// takes 60 to 250 bytes a byte of dense YAML, so the nodes a file may
// hold are bounded too (yamlcost.Check): a 1 MB file of 20,000 short
// cases took 33 MB over the process's baseline to read
// (docs/performance.md, "Hostile inputs").
const MaxFile = 1 << 20

// MaxRef bounds a program, input or context file a case names: larger
// than any Language's default limits (a program of 1 MiB, an input of
// 16 MiB), and it keeps a case naming a device or a huge file from
// reading without end.
const MaxRef = 64 << 20

var refBound = inputs.Bound{Bytes: MaxRef, Of: "the most a case's program, input or context may be", Hint: "name a smaller file"}

// Parse reads a case file. The first problem is returned as an *Error at
// its line; a file is all or nothing, so no case of a broken file passes.
// Each file its cases name is read for each case (Refs.Parse reads it
// once).
func Parse(name string, src []byte) (*File, error) { return (*Refs)(nil).Parse(name, src) }

// Parse is testcase.Parse reading the files cases name through r.
func (r *Refs) Parse(name string, src []byte) (*File, error) {
	if len(src) > MaxFile {
		return nil, &Error{File: name, Line: 1, Col: 1, Msg: fmt.Sprintf("case file of %d bytes, more than the %d a corpus file may hold", len(src), MaxFile), Hint: "split it into several files"}
	}
	if e := yamlcost.Check(src); e != nil {
		return nil, &Error{File: name, Line: e.Line, Col: e.Col, Msg: "case file too dense to read: " + e.Error(),
			Hint: "split the cases into several files, or move large programs, inputs and outputs into files of their own (`input: file.json`)"}
	}
	if e := notUTF8(name, src); e != nil {
		return nil, e
	}
	if e := secondDocument(name, src); e != nil {
		return nil, e
	}
	p := &parser{name: name, dir: filepath.Dir(name), refs: r}
	p.setSrc(src, 0)
	doc, err := p.readYAML(src)
	if err != nil {
		return nil, err
	}
	f := &File{Name: name, Src: src, doc: doc}
	if len(doc.Content) == 0 {
		return nil, &Error{File: name, Line: 1, Col: 1, Msg: "the file holds no cases", Hint: "write `cases:` with a list of cases (docs/test.md)"}
	}
	root := doc.Content[0]
	if root.Kind == yaml.SequenceNode {
		return nil, p.errAt(root, "expected a mapping of keys to values, found a list",
			"a case file is a mapping whose cases: key holds the list: write cases: on the first line and indent the list under it")
	}
	err = p.fields(root, map[string]func(*yaml.Node) error{
		"pdl":      func(n *yaml.Node) error { f.PDLAt = p.place(n); return p.str(n, &f.PDL) },
		"language": func(n *yaml.Node) error { f.LanguageAt = p.place(n); return p.str(n, &f.Language) },
		"cases": func(n *yaml.Node) error {
			if n.Kind != yaml.SequenceNode {
				return p.errAt(n, "cases is not a list", "")
			}
			for _, cn := range n.Content {
				c, err := p.testCase(cn)
				if err := p.soft(err); err != nil {
					return err
				}
				if c != nil {
					f.Cases = append(f.Cases, c)
				}
			}
			return nil
		},
	}, "cases")
	read := err == nil && len(p.errs) == 0
	if read {
		err = p.finish(f, root)
	}
	if err := p.collected(err); err != nil {
		var e *Error
		if !read && errors.As(err, &e) && p.resolvePDL(f, root) == nil {
			f.dropTree()
			e.Partial = f
		}
		return nil, err
	}
	return f, nil
}

// finish resolves the file's PDL and refuses two cases of one name, once
// its cases are read.
func (p *parser) finish(f *File, root *yaml.Node) error {
	if err := p.resolvePDL(f, root); err != nil {
		return err
	}
	seen := map[string]int{}
	for _, c := range f.Cases {
		if l, dup := seen[c.Name]; dup {
			at := c.NameAt
			return &Error{File: p.name, Line: at.Line, Col: at.Col, EndCol: at.End, Msg: fmt.Sprintf("a second case named %q (the first is at line %d)", c.Name, l), Hint: "case names select cases with --run; make them unique"}
		}
		seen[c.Name] = c.Line
	}
	return nil
}

// resolvePDL makes f.PDL a path: as written, relative to the file; left
// out, the one *.pdl file in the directory above the file's (a tests/
// directory beside its PDL).
func (p *parser) resolvePDL(f *File, root *yaml.Node) error {
	if f.PDL != "" {
		f.PDL = p.path(f.PDL)
		return nil
	}
	found, _ := filepath.Glob(filepath.Join(p.dir, "..", "*.pdl"))
	if len(found) == 0 {
		return p.errAt(root, "no pdl: and no *.pdl file beside the tests directory", "name the Language's file with `pdl: ../lang.pdl`")
	}
	if len(found) > 1 {
		// Named as the case file would name them, so the hint's is one
		// to paste.
		rel := make([]string, len(found))
		for i, f := range found {
			rel[i] = "../" + filepath.Base(f)
		}
		return p.errAt(root, fmt.Sprintf("no pdl: and %d *.pdl files beside the tests directory: %s", len(found), strings.Join(report.Clips(rel), ", ")),
			"name the Language's file with `pdl: "+report.Clip(rel[0])+"`")
	}
	f.PDL = found[0]
	return nil
}

// path is a path a case file names: relative to the case file, or
// absolute, as given.
func (p *parser) path(name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(p.dir, name)
}

// readRel reads a file a case names (path), through p.refs.
func (p *parser) readRel(n *yaml.Node, rel string) (string, *refFile, error) {
	path := p.path(rel)
	if f := p.refs.get(path); f != nil {
		return path, f, nil
	}
	b, err := inputs.ReadRegular(path, refBound)
	if err != nil {
		msg, hint := ReadError(p.dir, rel, err)
		return "", nil, p.errAt(n, msg, hint)
	}
	return path, p.refs.put(path, b), nil
}

// ReadError is what a report says of err, met reading rel, a file a case
// file in dir names (a program, an input, its PDL): the file as written,
// why, and the file it likely meant when there is none.
func ReadError(dir, rel string, err error) (msg, hint string) {
	hint = "paths are relative to the case file, or absolute"
	if errors.Is(err, fs.ErrNotExist) {
		if near := nearFile(dir, rel); near != "" {
			hint = "did you mean " + suggest.OneLine(report.Clip(near)) + "?"
		}
	}
	return fmt.Sprintf("cannot read %s: %v", rel, why(err)), hint
}

// nearFile is the file rel, a missing file a case names relative to
// dir or absolute, most likely meant (suggest.Path), written as rel is;
// "" for none.
func nearFile(dir, rel string) string {
	if filepath.IsAbs(rel) {
		root := filepath.VolumeName(rel) + string(filepath.Separator)
		if near := suggest.Path(root, filepath.ToSlash(rel[len(root):])); near != "" {
			return root + filepath.FromSlash(near)
		}
		return ""
	}
	return filepath.FromSlash(suggest.Path(dir, filepath.ToSlash(rel)))
}

// Refs reads the program, input and context files that cases name once
// for a run, not once for each case that names them: a 1 MiB case file
// can name one 1 MB program 9,000 times, and a copy of it for each case,
// each parsed again to check it for the engine, would be gigabytes held
// under --update and --coverage, which keep every case (docs/performance.md,
// "Hostile inputs"). A case's Program shares the bytes of the file, so the
// engine's check of the program it checked last is its answer
// (workbench/engine). Refs keeps the files most recently named within
// refsBudget bytes; a nil Refs keeps none.
type Refs struct{ files *lru.Cache[*refFile] }

// refsBudget bounds the bytes Refs holds for the files it keeps: the
// most input a Language takes by default (limits memory), many times a
// program. A file may be up to MaxRef, more than the budget: the cache
// drops a file heavier than the budget (its text copy included) as soon
// as it is charged, so each case naming it reads it again and holds its
// own copy, which goes with the case (Read reads a file in block style a
// case at a time).
const refsBudget = 16 << 20

// NewRefs is a Refs for one run.
func NewRefs() *Refs { return &Refs{files: lru.New[*refFile](refsBudget, 0)} }

// refFile is a file cases name: its bytes, and what was learnt of them.
type refFile struct {
	b []byte
	// checked says bad is what jsonpos.Check says of b: nil when it is
	// one JSON value; s is b as the text of a program.
	checked bool
	bad     *jsonpos.SyntaxError
	s       string
}

func (r *Refs) get(path string) *refFile {
	if r == nil {
		return nil
	}
	f, _ := r.files.Get(path)
	return f
}

// put keeps b as the file at path, and returns it as a refFile.
func (r *Refs) put(path string, b []byte) *refFile {
	f := &refFile{b: b}
	if r == nil {
		return f
	}
	return r.files.Put(path, f, len(b))
}

// text is f, kept at path, as the text of a program, or the offset of
// its first byte that is not UTF-8 (bad >= 0): the JSON string a text
// program travels as cannot hold that byte, and would carry U+FFFD, a
// character the file does not hold. The string is a second copy of f's
// bytes, made once, so it is charged to the cache too: the budget bounds
// what Refs holds, not only the bytes read.
func (r *Refs) text(path string, f *refFile) (s string, bad int) {
	if f.s == "" && len(f.b) > 0 {
		if bad := textenc.InvalidUTF8(f.b); bad >= 0 {
			return "", bad
		}
		f.s = string(f.b)
		if r != nil {
			r.files.Grow(path, len(f.b))
		}
	}
	return f.s, -1
}

// notJSON is where and why f is not one JSON value as every reader of
// pilotage reads it (docs/json.md), nil when it is: a name given twice
// or a byte that is not UTF-8, which encoding/json would read as one of
// the two values or as U+FFFD, is malformed, at its place.
func (f *refFile) notJSON() *jsonpos.SyntaxError {
	if !f.checked {
		f.checked = true
		errors.As(jsonpos.Check(f.b), &f.bad)
	}
	return f.bad
}

// why is the reason a file could not be read, without the path a case
// names relative to its file.
func why(err error) error {
	if u := errors.Unwrap(err); u != nil {
		return u
	}
	return err
}
