package testcase

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/base/suggest"
	"github.com/pilotage-dev/pilotage/internal/base/textenc"
	"github.com/pilotage-dev/pilotage/internal/base/yamlerr"
	"github.com/pilotage-dev/pilotage/internal/model/expr"
)

type parser struct {
	name, dir string
	refs      *Refs
	// errs are the errors met so far: reading goes on past an unknown
	// key, a value of the wrong shape or a file that cannot be read, so
	// one run names all of a file's (soft), up to MaxErrors.
	errs []*Error
	// stop is the error past MaxErrors, where reading stopped.
	stop *Error
	// src is the text being read, whose first line is line shift+1 of
	// the case file; at is where line last read it (line).
	src   []byte
	shift int
	at    struct{ line, off int }
}

// setSrc makes src, whose first line is line shift+1 of the case file,
// the text line reads.
func (p *parser) setSrc(src []byte, shift int) {
	p.src, p.shift = src, shift
	p.at.line, p.at.off = 1, 0
}

// line is line n of the case file, without its newline; nil when src
// does not hold it. Cases are read in order, so it reads on from the
// line asked for last, and the file is scanned about once.
func (p *parser) line(n int) []byte {
	if n -= p.shift; n < 1 {
		return nil
	}
	if n < p.at.line {
		p.at.line, p.at.off = 1, 0
	}
	for p.at.line < n {
		i := bytes.IndexByte(p.src[p.at.off:], '\n')
		if i < 0 {
			return nil
		}
		p.at.off += i + 1
		p.at.line++
	}
	rest := p.src[p.at.off:]
	if i := bytes.IndexByte(rest, '\n'); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// textAt is where the text of v, a program_text: value, is in the case
// file when its lines and columns are the text's, moved (a literal block,
// |, with no indentation indicator): its first line, and the column its
// lines are indented to. Zero for any other: a folded or quoted text's
// lines are not the file's.
func (p *parser) textAt(v *yaml.Node) Place {
	head := p.line(v.Line)
	if v.Style&yaml.LiteralStyle == 0 || v.Column < 1 || v.Column > len(head) || head[v.Column-1] != '|' {
		return Place{}
	}
	if ind := bytes.TrimLeft(head[v.Column:], "+-"); len(ind) > 0 && ind[0] >= '1' && ind[0] <= '9' {
		return Place{}
	}
	for l := v.Line + 1; ; l++ {
		t := p.line(l)
		if t == nil {
			return Place{}
		}
		if body := bytes.TrimLeft(t, " "); len(bytes.TrimRight(body, "\r")) > 0 {
			return Place{File: p.name, Line: v.Line + 1, Col: len(t) - len(body) + 1}
		}
	}
}

// MaxErrors bounds the errors one reading of a case file collects, and
// the findings a run reports of a file that does not read (langtest): a
// file in the wrong shape throughout, or generated wrong, is not
// reported a line at a time for thousands of lines.
const MaxErrors = 20

// errTooMany stops a reading that has collected MaxErrors errors.
var errTooMany = errors.New("too many errors")

// soft records err, an *Error, and lets reading go on (nil); any other
// error, and the one past MaxErrors, stops it.
func (p *parser) soft(err error) error {
	var e *Error
	if !errors.As(err, &e) {
		return err
	}
	if len(p.errs) == MaxErrors {
		p.stop = e
		return errTooMany
	}
	p.errs = append(p.errs, e)
	return nil
}

// collected is the errors the reading met, err (which stopped it, or
// nil) last, as one *Error: the first, with the others in More, in the
// order of the file; nil when there were none.
func (p *parser) collected(err error) error {
	if errors.Is(err, errTooMany) {
		err = &Error{File: p.stop.File, Line: p.stop.Line, Col: p.stop.Col, Src: p.stop.Src, Named: p.stop.Named,
			Msg: fmt.Sprintf("reading stopped here after %d errors; this one and later ones are not listed", MaxErrors), Hint: "mend the errors above and run pilotage test again"}
	}
	var e *Error
	switch {
	case err != nil && !errors.As(err, &e):
		return err
	case e != nil:
		p.errs = append(p.errs, e)
	}
	if len(p.errs) == 0 {
		return nil
	}
	all := p.errs
	p.errs = nil
	slices.SortStableFunc(all, func(a, b *Error) int {
		// An error in a file a case names sorts where the case names it.
		at := func(e *Error) (int, int) {
			if e.Named.File != "" {
				return e.Named.Line, e.Named.Col
			}
			return e.Line, e.Col
		}
		al, ac := at(a)
		bl, bc := at(b)
		return cmp.Or(cmp.Compare(al, bl), cmp.Compare(ac, bc))
	})
	first := *all[0]
	first.More = all[1:]
	return &first
}

func (p *parser) errAt(n *yaml.Node, msg, hint string) error {
	return &Error{File: p.name, Line: n.Line, Col: n.Column, EndCol: endCol(n), Msg: msg, Hint: hint}
}

// place is where n is in the case file.
func (p *parser) place(n *yaml.Node) Place {
	return Place{File: p.name, Line: n.Line, Col: n.Column, End: endCol(n)}
}

// keyNode is the key name of mapping m, m when it has none.
func keyNode(m *yaml.Node, name string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == name {
			return m.Content[i]
		}
	}
	return m
}

// keyed is where the member of mapping m whose value is v is: from its
// key to the value's end when both are on one line, else the key.
func (p *parser) keyed(m, v *yaml.Node) Place {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k := m.Content[i]; m.Content[i+1] == v {
			at := p.place(k)
			if at.End = 0; k.Line == v.Line {
				at.End = endCol(v)
			}
			return at
		}
	}
	return p.place(v)
}

// endCol is the column past a scalar written on one line, quotes
// included, so a report underlines the whole value; 0 for any other.
func endCol(n *yaml.Node) int {
	if n.Kind != yaml.ScalarNode || strings.ContainsAny(n.Value, "\n\r") {
		return 0
	}
	w := utf8.RuneCountInString(n.Value)
	// What a quoted scalar may escape: its written width is then not the
	// value's. Single quotes escape only themselves ('it''s'); double
	// quotes their own, backslashes and what a backslash writes (\t).
	switch {
	case n.Style&yaml.SingleQuotedStyle != 0:
		if strings.ContainsRune(n.Value, '\'') {
			return 0
		}
		w += 2
	case n.Style&yaml.DoubleQuotedStyle != 0:
		if strings.ContainsFunc(n.Value, func(r rune) bool {
			return r == '"' || r == '\\' || r < ' ' || r == 0x7f || r > 0x7e && !unicode.IsPrint(r)
		}) {
			return 0
		}
		w += 2
	}
	return n.Column + w
}

// yamlError places go-yaml's error reading src, a case file, at its
// cause's line and column (yamlerr.Place).
func yamlError(name string, src []byte, err error) error {
	e := yamlerr.Place(src, err, "docs/test.md")
	return &Error{File: name, Line: e.Line, Col: e.Column, Msg: "not YAML: " + e.Message, Hint: e.Hint}
}

// notUTF8 is the first byte of src, the case file name, that is not
// UTF-8, as an error at its place (go-yaml says "invalid leading UTF-8
// octet" with no line, and a string holding it would reach the engine as
// U+FFFD), or nil. A file in UTF-16 or UTF-32, which go-yaml reads, is
// named with its fix, as a JSON reader names it (docs/json.md): a case
// file is UTF-8 like every file pilotage reads.
func notUTF8(name string, src []byte) *Error {
	if enc := textenc.Sniff(src); enc.Foreign() {
		return &Error{File: name, Line: 1, Col: 1, Msg: "the case file " + enc.Shows + "; a case file is UTF-8 text", Hint: enc.Convert()}
	}
	at := textenc.InvalidUTF8(src)
	if at < 0 {
		return nil
	}
	pos := (&jsonpos.Doc{Src: src}).Position(at)
	return &Error{File: name, Line: pos.Line, Col: pos.Column, Msg: fmt.Sprintf("not UTF-8: byte 0x%02x is not a character", src[at]), Hint: "a case file is UTF-8 text (docs/test.md)"}
}

// readYAML parses src, a case file or a part of it, into its tree, and
// refuses a key given twice in any mapping, at the second: go-yaml keeps
// both in the tree, and a value made of them (an input, an output, a
// stub's returns) would hold one of the two, which one up to its reader,
// as a JSON object naming a member twice would (docs/json.md).
func (p *parser) readYAML(src []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, yamlError(p.name, src, err)
	}
	if err := p.uniqueKeys(&doc); err != nil {
		return nil, err
	}
	return &doc, nil
}

// smallMapping is the most keys a mapping may have for uniqueKeys to
// compare each with those before it, rather than make a set: nearly
// every mapping of a case file has a handful.
const smallMapping = 16

// uniqueKeys is the first key given twice in a mapping under n, as an
// error at it, or nil. A key that is no scalar is left to writeJSON,
// which refuses it, and an alias is not followed: writeJSON refuses one.
func (p *parser) uniqueKeys(n *yaml.Node) error {
	if n.Kind == yaml.MappingNode {
		var seen map[string]*yaml.Node
		if len(n.Content) > 2*smallMapping {
			seen = make(map[string]*yaml.Node, len(n.Content)/2)
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				continue
			}
			first := seen[k.Value]
			if seen == nil {
				for j := 0; j < i && first == nil; j += 2 {
					if b := n.Content[j]; b.Kind == yaml.ScalarNode && b.Value == k.Value {
						first = b
					}
				}
			} else if first == nil {
				seen[k.Value] = k
			}
			if first != nil {
				return p.errAt(k, fmt.Sprintf("key %q given twice (first at %d:%d)", k.Value, first.Line, first.Column),
					"a YAML mapping gives each key once: remove one, or make a list of the values")
			}
		}
	}
	for _, c := range n.Content {
		if err := p.uniqueKeys(c); err != nil {
			return err
		}
	}
	return nil
}

// fields walks a mapping, calling each key's handler; an unknown key is
// an error naming the closest known one, and required keys must appear.
func (p *parser) fields(n *yaml.Node, handlers map[string]func(*yaml.Node) error, required ...string) error {
	if n.Kind != yaml.MappingNode {
		return p.errAt(n, "expected a mapping of keys to values", "")
	}
	known := make([]string, 0, len(handlers))
	for k := range handlers {
		known = append(known, k)
	}
	slices.Sort(known)
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		h, ok := handlers[k.Value]
		if !ok {
			if err := p.soft(p.unknownKey(k, known)); err != nil {
				return err
			}
			continue
		}
		seen[k.Value] = true // a key given twice is refused before (uniqueKeys)
		if err := p.soft(h(v)); err != nil {
			return err
		}
	}
	for _, r := range required {
		if !seen[r] {
			if err := p.soft(p.errAt(n, fmt.Sprintf("missing %s", r), "")); err != nil {
				return err
			}
		}
	}
	return nil
}

// unknownKey is the error of key k, none of known, naming the closest.
func (p *parser) unknownKey(k *yaml.Node, known []string) error {
	hint := "the keys here are " + strings.Join(known, ", ")
	if s := suggest.DidYouMean(k.Value, known); s != "" {
		hint = s
	}
	return p.errAt(k, "unknown key "+report.QuoteName(k.Value), hint)
}

// decodeKnown decodes n into v as decode does, after refusing a key no
// field of v reads, in n or in each mapping of a list n: an expectation
// compares only the members it states, so a misspelt one (stauts:,
// cals:) would state nothing and pass unseen.
func (p *parser) decodeKnown(n *yaml.Node, v any) error {
	known := yamlKeys(reflect.TypeOf(v))
	maps := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode {
		maps = n.Content
	}
	for _, m := range maps {
		if m.Kind != yaml.MappingNode {
			continue // decode says what shape it wants
		}
		for i := 0; i < len(m.Content); i += 2 {
			if k := m.Content[i]; !slices.Contains(known, k.Value) {
				if err := p.soft(p.unknownKey(k, known)); err != nil {
					return err
				}
			}
		}
	}
	return p.decode(n, v)
}

// yamlKeys are the keys of the struct t holds (through pointers and
// slices), as its yaml tags name them, sorted.
func yamlKeys(t reflect.Type) []string {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	var keys []string
	for f := range t.Fields() {
		if name, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); name != "" && name != "-" {
			keys = append(keys, name)
		}
	}
	slices.Sort(keys)
	return keys
}

func (p *parser) str(n *yaml.Node, dst *string) error {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return p.errAt(n, "expected a string", "")
	}
	*dst = n.Value
	return nil
}

var mismatch = regexp.MustCompile(`(?:line (\d+): )?cannot unmarshal !!(\w+) (?:` + "`([^`]*)`" + ` )?into (\S+)`)

// yamlKinds words YAML tags and Go types for a case file's author.
var yamlKinds = map[string]string{"map": "a mapping", "seq": "a list", "str": "a string", "int": "a number", "float": "a number", "bool": "true or false", "null": "nothing"}

// decode reads a node into v, placing a type mismatch at the node.
func (p *parser) decode(n *yaml.Node, v any) error {
	switch v.(type) {
	case *bool, **bool:
		// go-yaml reads YAML 1.1's words (yes, on) and any quoted
		// spelling of them into a bool, but not "false": true or false
		// is a YAML boolean, and every string is refused alike.
		if n.Kind == yaml.ScalarNode && n.ShortTag() != "!!bool" {
			return &Error{File: p.name, Line: n.Line, Col: n.Column, EndCol: endCol(n),
				Msg: "expected true or false here, found " + cmp.Or(yamlKinds[strings.TrimPrefix(n.ShortTag(), "!!")], "a "+n.ShortTag()), Hint: "write true or false, unquoted"}
		}
	}
	err := n.Decode(v)
	if err == nil {
		return nil
	}
	msg, at := err.Error(), n
	if m := mismatch.FindStringSubmatch(msg); m != nil {
		want := "a mapping"
		switch {
		case strings.HasPrefix(m[4], "[]"):
			want = "a list"
		case m[4] == "bool" || m[4] == "*bool":
			want = "true or false"
		case m[4] == "string":
			want = "a string"
		}
		msg = fmt.Sprintf("expected %s here, found %s", want, yamlKinds[m[2]])
		if line, err := strconv.Atoi(m[1]); err == nil {
			at = cmp.Or(mismatched(n, line, "!!"+m[2], strings.TrimSuffix(m[3], "...")), n)
		}
	}
	return &Error{File: p.name, Line: at.Line, Col: at.Column, EndCol: endCol(at), Msg: msg, Hint: "docs/test.md shows each key's shape"}
}

// mismatched is the value under n that go-yaml names in a type error:
// the first at line of tag whose value starts with prefix (go-yaml
// clips a long one), the innermost of those, nil when there is none. A
// key is passed over: the error is of the value it names.
func mismatched(n *yaml.Node, line int, tag, prefix string) *yaml.Node {
	for i, x := range n.Content {
		if n.Kind == yaml.MappingNode && i%2 == 0 || x.Line > line {
			continue
		}
		if found := mismatched(x, line, tag, prefix); found != nil {
			return found
		}
	}
	if n.Line == line && n.ShortTag() == tag && strings.HasPrefix(n.Value, prefix) {
		return n
	}
	return nil
}

// jsonValue turns a YAML value into JSON bytes, numbers as written:
// 100.0 stays a double for CEL, which does not mix it with the int 100.
func (p *parser) jsonValue(n *yaml.Node) (json.RawMessage, error) {
	var b bytes.Buffer
	if err := p.writeJSON(&b, n, 0); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// maxDepth bounds the nesting of a value a case gives.
const maxDepth = 200

func (p *parser) writeJSON(b *bytes.Buffer, n *yaml.Node, depth int) error {
	if depth > maxDepth {
		return p.errAt(n, fmt.Sprintf("value nested more than %d deep", maxDepth), "")
	}
	switch n.Kind {
	case yaml.AliasNode:
		return p.errAt(n, "aliases are not supported in values", "write the value out")
	case yaml.SequenceNode:
		b.WriteByte('[')
		for i, x := range n.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := p.writeJSON(b, x, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case yaml.MappingNode:
		b.WriteByte('{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				b.WriteByte(',')
			}
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				return p.errAt(k, "a mapping key that is not a string", "")
			}
			kb, _ := json.Marshal(k.Value)
			b.Write(kb)
			b.WriteByte(':')
			if err := p.writeJSON(b, n.Content[i+1], depth+1); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	default:
		return p.scalarJSON(b, n)
	}
	return nil
}

// yamlFloat is a number as YAML 1.2's core schema reads a plain scalar
// (every JSON number is one): go-yaml makes such a scalar the string
// it is when the float overflows.
var yamlFloat = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)

func (p *parser) scalarJSON(b *bytes.Buffer, n *yaml.Node) error {
	switch n.ShortTag() {
	case "!!null":
		b.WriteString("null")
		return nil
	case "!!bool", "!!int", "!!float":
		var v any
		if err := n.Decode(&v); err != nil {
			return p.errAt(n, err.Error(), "")
		}
		if n.ShortTag() == "!!float" && json.Valid([]byte(n.Value)) {
			b.WriteString(n.Value) // as written: 100.0
			return nil
		}
		out, err := json.Marshal(v)
		if err != nil {
			return p.errAt(n, fmt.Sprintf("%s is no JSON number", n.Value), "")
		}
		if n.ShortTag() == "!!float" && !bytes.ContainsAny(out, ".eE") {
			out = append(out, ".0"...)
		}
		b.Write(out)
		return nil
	}
	if n.Style == 0 && yamlFloat.MatchString(n.Value) {
		// A plain scalar written as a number that go-yaml read as a
		// string: one past a float64's range (1e400, a hundred digits,
		// or YAML's own forms, +1e400 and .5e400), which run --input
		// refuses too (expr.RangeError).
		return p.errAt(n, (&expr.RangeError{Number: report.Clip(n.Value)}).Error(), "quote it to send the text: '"+report.Clip(n.Value)+"'")
	}
	out, _ := json.Marshal(n.Value)
	b.Write(out)
	return nil
}

// jsonOrFile reads a value given inline or, as a string ending in
// .json, the file it names.
func (p *parser) jsonOrFile(n *yaml.Node, dst *json.RawMessage) error {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" && strings.HasSuffix(n.Value, ".json") {
		path, f, err := p.readRel(n, n.Value)
		if err != nil {
			return err
		}
		if se := f.notJSON(); se != nil {
			return p.inFile(n, path, f.b, se.Pos, "malformed JSON: "+se.Msg, "a case's input or context file is one JSON value, read as run --input reads one (docs/json.md)")
		}
		*dst = f.b
		return nil
	}
	var err error
	*dst, err = p.jsonValue(n)
	return err
}

func (p *parser) testCase(n *yaml.Node) (*Case, error) {
	c := &Case{Line: n.Line, Col: n.Column, node: n}
	before := len(p.errs)
	err := p.fields(n, map[string]func(*yaml.Node) error{
		"name": func(v *yaml.Node) error { c.NameAt = p.keyed(n, v); return p.str(v, &c.Name) },
		"principal": func(v *yaml.Node) error {
			c.PrincipalAt = p.place(v)
			return p.str(v, &c.Principal)
		},
		"trace_level": func(v *yaml.Node) error { return p.str(v, &c.TraceLevel) },
		"program":     func(v *yaml.Node) error { c.ProgramAt = p.keyed(n, v); return p.program(v, c) },
		"program_ref": func(v *yaml.Node) error { return p.str(v, &c.ProgramRef) },
		"program_text": func(v *yaml.Node) error {
			c.Text, c.ProgramAt, c.TextAt = true, p.keyed(n, v), p.textAt(v)
			return p.str(v, &c.ProgramText)
		},
		"input":    func(v *yaml.Node) error { return p.jsonOrFile(v, &c.Input) },
		"test_run": func(v *yaml.Node) error { return p.decode(v, &c.TestRun) },
		"context":  func(v *yaml.Node) error { return p.jsonOrFile(v, &c.Context) },
		"stubs":    func(v *yaml.Node) error { return p.stubs(v, c) },
		"drift": func(v *yaml.Node) error {
			c.Drift = &Drift{Line: v.Line, Pin: true}
			return p.fields(v, map[string]func(*yaml.Node) error{
				"remove":                   func(x *yaml.Node) error { return p.decode(x, &c.Drift.Remove) },
				"describe":                 func(x *yaml.Node) error { return p.decode(x, &c.Drift.Describe) },
				"expected_catalog_version": func(x *yaml.Node) error { return p.decode(x, &c.Drift.Pin) },
			})
		},
		"expect": func(v *yaml.Node) error { return p.expect(v, &c.Expect) },
	}, "name")
	if err != nil || len(p.errs) > before {
		// What the case's keys could not say is reported; what follows
		// from it (no program, when the program's file is missing) is not.
		return c, err
	}
	if c.ProgramRef != "" {
		if c.Program != nil || c.Text {
			return nil, p.errAt(n, fmt.Sprintf("case %q gives both a program and a program_ref", c.Name), "a Run executes one or the other (§6.5.1)")
		}
		for _, k := range []string{"valid", "diagnostics", "plan"} {
			if l, ok := c.Expect.Lines[k]; ok {
				return nil, &Error{File: p.name, Line: l, Col: 1, Msg: fmt.Sprintf("case %q runs a program_ref, which is not validated: it has no %s", c.Name, k), Hint: "state status, output, trace or narration"}
			}
		}
		return c, nil
	}
	if c.Program == nil && !c.Text {
		return nil, p.errAt(n, fmt.Sprintf("case %q has no program", c.Name), "add program: FILE, program: {steps: …}, program_text: | or program_ref: ID")
	}
	if c.Text {
		c.Program, _ = json.Marshal(c.ProgramText)
	}
	return c, nil
}

// program reads `program:`: a file name (a .json file is a JSON program,
// any other a text one), or an inline JSON program.
func (p *parser) program(n *yaml.Node, c *Case) error {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
		var err error
		if c.Program, err = p.jsonValue(n); err == nil {
			p.quoted(n, "", "", c)
		}
		return err
	}
	path, f, err := p.readRel(n, n.Value)
	if err != nil {
		return err
	}
	c.ProgramFile = path
	if strings.HasSuffix(path, ".json") {
		c.Program = f.b
		return nil
	}
	var bad int
	if c.ProgramText, bad = p.refs.text(path, f); bad >= 0 {
		return p.inFile(n, path, f.b, (&jsonpos.Doc{Src: f.b}).Position(bad),
			fmt.Sprintf("the program is not UTF-8 text: byte 0x%02x is not a character", f.b[bad]), "save the program as UTF-8")
	}
	c.Text = true
	return nil
}

// quoted records in c.Quoted each string under n, the value of key at
// pointer at of an inline program (jsonValue has read it, so it is not
// nested too deep), that is written quoted.
func (p *parser) quoted(n *yaml.Node, at, key string, c *Case) {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) != 0 {
			if c.Quoted == nil {
				c.Quoted = map[string]Quoted{}
			}
			c.Quoted[at] = Quoted{At: p.place(n), Key: key, Value: n.Value}
		}
	case yaml.SequenceNode:
		for i, x := range n.Content {
			p.quoted(x, at+"/"+strconv.Itoa(i), "", c)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			p.quoted(n.Content[i+1], at+"/"+pointerEscaper.Replace(k), k, c)
		}
	}
}

var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// inFile is an error at pos of src, the file at path that the case file
// names at n: a report quotes that file, and says where it is named.
func (p *parser) inFile(n *yaml.Node, path string, src []byte, pos jsonpos.Pos, msg, hint string) error {
	return &Error{File: path, Line: pos.Line, Col: pos.Column, Msg: msg, Hint: hint, Src: src, Named: Place{File: p.name, Line: n.Line, Col: n.Column}}
}

func (p *parser) stubs(n *yaml.Node, c *Case) error {
	if n.Kind != yaml.MappingNode {
		return p.errAt(n, "stubs is not a mapping of entry ids", "stubs: {todo.add: {returns: …}}")
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		list, perCall := []*yaml.Node{v}, false
		what := "stubs of %s are a list of stubs tried in order"
		if v.Kind == yaml.SequenceNode {
			list = v.Content
		}
		if v.Kind == yaml.MappingNode && len(v.Content) == 2 && v.Content[0].Value == "calls" {
			if list, perCall = v.Content[1].Content, true; v.Content[1].Kind != yaml.SequenceNode || len(list) == 0 {
				return p.errAt(v.Content[1], "calls is not a list of stubs", "calls: [{returns: …}, {fail: STATUS}]")
			}
			v, what = v.Content[1], "calls of %s are a list of stubs, one a call"
		}
		if j := slices.IndexFunc(list, func(x *yaml.Node) bool { return x.Kind != yaml.MappingNode }); j >= 0 && v.Kind == yaml.SequenceNode {
			// A list of values ([1, 2]) is most likely an output: the
			// error is at the list, which the hint mends.
			item := "the item at line " + strconv.Itoa(list[j].Line)
			if list[j].Kind == yaml.ScalarNode && list[j].Line == v.Line {
				item = report.Clip(list[j].Value)
			}
			return p.errAt(v, fmt.Sprintf(what+", but %s is not a stub", report.Clip(k.Value), item),
				"a stub is {returns: VALUE}, {compute: CEL} or {fail: STATUS}; for an output that is a list, write "+report.Clip(k.Value)+": {returns: […]}")
		}
		for i, sn := range list {
			s := Stub{Entry: k.Value, At: p.place(k)}
			if perCall {
				s.Call = i + 1
			}
			before := len(p.errs)
			err := p.fields(sn, map[string]func(*yaml.Node) error{
				"returns": func(x *yaml.Node) error { var err error; s.Returns, err = p.jsonValue(x); return err },
				"compute": func(x *yaml.Node) error { s.ComputeAt = p.place(x); return p.str(x, &s.Compute) },
				"fail":    func(x *yaml.Node) error { s.FailAt = p.place(x); return p.str(x, &s.Fail) },
				"when":    func(x *yaml.Node) error { s.WhenAt = p.place(x); return p.str(x, &s.When) },
				"message": func(x *yaml.Node) error { return p.str(x, &s.Message) },
			})
			if err != nil {
				return err
			}
			if len(p.errs) > before {
				continue // its keys' errors say what is wrong with it
			}
			if (s.Returns != nil) == (s.Compute != "") && s.Fail == "" {
				return p.errAt(sn, fmt.Sprintf("stub of %s gives neither or both of returns and compute", k.Value), "give returns: VALUE, compute: CEL or fail: STATUS")
			}
			if s.Fail != "" {
				// A failure gives no output: a returns or compute beside
				// it would be read past.
				for _, m := range []struct {
					key   string
					given bool
				}{{"returns", s.Returns != nil}, {"compute", s.Compute != ""}} {
					if m.given {
						return p.errAt(keyNode(sn, m.key), fmt.Sprintf("stub of %s gives %s: beside fail:; a failure gives no output", report.Clip(k.Value), m.key),
							"list the stubs in the order they are tried: [{fail: STATUS, when: CEL}, {returns: VALUE}]")
					}
				}
			}
			if s.Fail == "" {
				// A condition and a message are a failure's: on an output
				// they would be read past, and the output always given.
				for _, m := range [][2]string{{"when", s.When}, {"message", s.Message}} {
					if m[1] != "" {
						return p.errAt(keyNode(sn, m[0]), fmt.Sprintf("stub of %s gives %s: without fail:; only a failure has a condition and a message", report.Clip(k.Value), m[0]),
							"add fail: STATUS, or list the stubs in the order they are tried: [{fail: STATUS, when: CEL}, {returns: VALUE}]")
					}
				}
			}
			c.Stubs = append(c.Stubs, s)
		}
	}
	return nil
}

// planPlaces records in e where plan, the plan: expectation, writes each
// risk level, so that one outside the closed set is reported at its
// value, not at the plan, and which of its members are given with no
// value (steps:), which state nothing yet, as a blank key does.
func (p *parser) planPlaces(plan *yaml.Node, e *Expect) {
	if plan.Kind != yaml.MappingNode {
		return // decode says what shape it wants
	}
	for i := 0; i+1 < len(plan.Content); i += 2 {
		switch k, v := plan.Content[i], plan.Content[i+1]; {
		case v.Kind == yaml.ScalarNode && v.Tag == "!!null":
			e.PlanBlank = append(e.PlanBlank, Member{Name: k.Value, At: p.place(v)})
		case k.Value == "max_risk":
			e.MaxRiskAt = p.place(v)
		case k.Value == "risks" && v.Kind == yaml.MappingNode:
			e.RisksAt = make(map[string]Place, len(v.Content)/2)
			for j := 0; j+1 < len(v.Content); j += 2 {
				e.RisksAt[v.Content[j].Value] = p.place(v.Content[j+1])
			}
		}
	}
}

func (p *parser) expect(n *yaml.Node, e *Expect) error {
	e.node, e.Lines, e.Cols = n, map[string]int{}, map[string]int{}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		// `expect:` with no value (or ~) states nothing, as a case
		// without expect does: it fails until --update fills it in.
		return nil
	}
	at := func(key string, f func(*yaml.Node) error) func(*yaml.Node) error {
		return func(v *yaml.Node) error {
			e.Lines[key], e.Cols[key] = v.Line, v.Column
			if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
				// `status:` with no value: a blank for --update to fill.
				e.Blank = append(e.Blank, key)
				return nil
			}
			return f(v)
		}
	}
	return p.fields(n, map[string]func(*yaml.Node) error{
		"valid":       at("valid", func(v *yaml.Node) error { return p.decode(v, &e.Valid) }),
		"diagnostics": at("diagnostics", func(v *yaml.Node) error { e.Diagnostics = []DiagWant{}; return p.decodeKnown(v, &e.Diagnostics) }),
		"plan": at("plan", func(v *yaml.Node) error {
			e.Plan = &PlanWant{}
			p.planPlaces(v, e)
			return p.decodeKnown(v, e.Plan)
		}),
		"status":    at("status", func(v *yaml.Node) error { return p.str(v, &e.Status) }),
		"output":    at("output", func(v *yaml.Node) error { var err error; e.Output, err = p.jsonValue(v); return err }),
		"trace":     at("trace", func(v *yaml.Node) error { e.Trace = []TraceWant{}; return p.decodeKnown(v, &e.Trace) }),
		"narration": at("narration", func(v *yaml.Node) error { return p.str(v, &e.Narration) }),
	})
}
