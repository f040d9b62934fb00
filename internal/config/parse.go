package config

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"go.yaml.in/yaml/v3"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/pilotage-dev/pilotage/internal/base/pathglob"
	"github.com/pilotage-dev/pilotage/internal/base/suggest"
	"github.com/pilotage-dev/pilotage/internal/base/yamlcost"
	"github.com/pilotage-dev/pilotage/internal/base/yamlerr"
)

// Bounds on the tree built from the YAML, aliases expanded: a bomb of
// aliases ("billion laughs") is a few hundred bytes that expand
// exponentially, so the expansion is counted and cut off.
const (
	maxValues = 10000
	maxDepth  = 32
)

// Parse reads a pilotage.yaml from src; name is used in diagnostics and
// its directory is the one patterns are relative to. The rule IDs the
// file names are checked against known, when given, with every other
// problem: a file whose settings are wrong in several ways is told all
// of them at once.
func Parse(name string, src []byte, known ...string) (*Config, error) {
	dir, err := filepath.Abs(filepath.Dir(name))
	if err != nil {
		return nil, err
	}
	cfg := &Config{File: name, Dir: dir}
	if len(src) > MaxSize {
		return nil, Diagnostics{{File: name, Line: 1, Column: 1,
			Message: fmt.Sprintf("the file is larger than %d KiB, more than any configuration needs", MaxSize>>10),
			Hint:    "is it the right file? --config names another"}}
	}
	if ds := cfg.parse(src, known); len(ds) > 0 {
		ds.show(src)
		return nil, ds
	}
	cfg.src = src
	return cfg, nil
}

// parse fills cfg from src, or says what is wrong with it, the rule IDs
// it names checked against known when given.
func (cfg *Config) parse(src []byte, known []string) Diagnostics {
	if e := yamlcost.Check(src); e != nil {
		return Diagnostics{{File: cfg.File, Line: e.Line, Column: e.Col, Message: "too dense to read: " + e.Error(),
			Hint: "a pilotage.yaml is a few hundred lines of settings; is it the right file? --config names another"}}
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(src))
	if err := dec.Decode(&doc); err != nil && err != io.EOF {
		e := yamlerr.Place(src, err, "docs/config.md")
		return Diagnostics{{File: cfg.File, Line: e.Line, Column: e.Column, Message: "not valid YAML: " + e.Message, Hint: e.Hint}}
	}
	for {
		// A later document that holds something would be read by no
		// verb: say so rather than let its settings be silently left
		// out. An empty one (a trailing ---) sets nothing.
		var next yaml.Node
		err := dec.Decode(&next)
		if err == io.EOF {
			break
		}
		if err == nil && emptyDocument(&next) {
			continue
		}
		line := documentStart(src, next.Line)
		return Diagnostics{{File: cfg.File, Line: line, Column: 1, Message: "a second YAML document begins here; pilotage.yaml is one document, and no verb would read this one",
			Hint: "remove the --- line so its settings join the first document's, or move them to another file --config names"}}
	}
	if len(doc.Content) == 0 {
		return nil // an empty file sets nothing
	}
	t := &tree{file: cfg.File, nodes: map[string]*yaml.Node{}, keys: map[string]*yaml.Node{}}
	val, err := t.value(doc.Content[0], "", 0)
	if err != nil {
		return Diagnostics{err.(*Diagnostic)}
	}
	var rules Diagnostics
	if known != nil {
		rules = unknownRules(t.ruleRefs(val), known)
	}
	if ds := t.validate(val); len(ds) > 0 {
		// A key the schema refuses (no rule ID's form) is not also
		// unknown.
		said := map[[2]int]bool{}
		for _, d := range ds {
			said[[2]int{d.Line, d.Column}] = true
		}
		rules = slices.DeleteFunc(rules, func(d *Diagnostic) bool { return said[[2]int{d.Line, d.Column}] })
		return inFileOrder(append(ds, rules...))
	}
	t.decode(cfg, val.(map[string]any))
	return inFileOrder(append(cfg.checkPatterns(), rules...))
}

// emptyDocument reports whether a YAML document holds no value: nothing
// after its ---, or a comment only.
func emptyDocument(n *yaml.Node) bool {
	if len(n.Content) == 0 {
		return true
	}
	c := n.Content[0]
	return c.Kind == yaml.ScalarNode && c.Tag == "!!null" && c.Value == ""
}

// documentStart is the line of the "---" that starts the document whose
// first value is at line (1-based), or line when there is none before it.
func documentStart(src []byte, line int) int {
	lines := bytes.Split(src, []byte("\n"))
	for i := min(line, len(lines)) - 1; i >= 0; i-- {
		if bytes.HasPrefix(lines[i], []byte("---")) {
			return i + 1
		}
	}
	return max(line, 1)
}

// inFileOrder sorts ds by place.
func inFileOrder(ds Diagnostics) Diagnostics {
	sort.SliceStable(ds, func(i, j int) bool {
		if ds[i].Line != ds[j].Line {
			return ds[i].Line < ds[j].Line
		}
		return ds[i].Column < ds[j].Column
	})
	return ds
}

// ruleRef is a rule ID the file names, and where.
type ruleRef struct {
	id string
	at Origin
}

// ruleRefs are the rule IDs the file names (rules, overrides' rules,
// suppressions' rules) in file order, read from the tree whether or not
// it passed the schema: a value of the wrong type is skipped, the
// schema's diagnostics say so.
func (t *tree) ruleRefs(val any) []ruleRef {
	var refs []ruleRef
	keys := func(m any, ptr string) {
		mm, _ := m.(map[string]any)
		for _, id := range slices.Sorted(maps.Keys(mm)) {
			if k := t.keys[ptr+"/"+escape(id)]; k != nil {
				refs = append(refs, ruleRef{id, Origin{File: t.file, Line: k.Line, Column: k.Column}})
			}
		}
	}
	top, _ := val.(map[string]any)
	keys(top["rules"], "/rules")
	for i, o := range list(top["overrides"]) {
		m, _ := o.(map[string]any)
		keys(m["rules"], "/overrides/"+strconv.Itoa(i)+"/rules")
	}
	for i, o := range list(top["suppress"]) {
		m, _ := o.(map[string]any)
		for j, id := range list(m["rules"]) {
			ptr := "/suppress/" + strconv.Itoa(i) + "/rules/" + strconv.Itoa(j)
			if s, ok := id.(string); ok && t.nodes[ptr] != nil {
				refs = append(refs, ruleRef{s, t.origin(ptr)})
			}
		}
	}
	sort.SliceStable(refs, func(i, j int) bool { return refs[i].at.Line < refs[j].at.Line })
	return refs
}

// tree converts the YAML node tree into plain values for the schema
// validator, remembering the node (and for a member the key node) at
// each JSON Pointer so every diagnostic has a line and column.
type tree struct {
	file   string
	nodes  map[string]*yaml.Node
	keys   map[string]*yaml.Node
	values int
}

func (t *tree) at(n *yaml.Node, format string, args ...any) *Diagnostic {
	return &Diagnostic{File: t.file, Line: n.Line, Column: n.Column, Message: fmt.Sprintf(format, args...)}
}

func (t *tree) value(n *yaml.Node, ptr string, depth int) (any, error) {
	t.values++
	if t.values > maxValues {
		return nil, t.at(n, "the file holds more than %d values once its aliases are expanded", maxValues)
	}
	if depth > maxDepth {
		return nil, t.at(n, "values nested more than %d deep; no key of pilotage.yaml nests more than 4", maxDepth)
	}
	if _, seen := t.nodes[ptr]; !seen {
		t.nodes[ptr] = n
	}
	switch n.Kind {
	case yaml.AliasNode:
		return t.value(n.Alias, ptr, depth+1)
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode || k.Tag == "!!merge" {
				return nil, t.at(k, "a key must be a plain name")
			}
			if _, dup := m[k.Value]; dup {
				return nil, t.at(k, "%q is set twice in this mapping", k.Value)
			}
			p := ptr + "/" + escape(k.Value)
			t.keys[p] = k
			var err error
			if m[k.Value], err = t.value(v, p, depth+1); err != nil {
				return nil, err
			}
		}
		return m, nil
	case yaml.SequenceNode:
		s := make([]any, len(n.Content))
		for i, c := range n.Content {
			var err error
			if s[i], err = t.value(c, ptr+"/"+strconv.Itoa(i), depth+1); err != nil {
				return nil, err
			}
		}
		return s, nil
	}
	switch n.ShortTag() {
	case "!!null":
		return nil, nil
	case "!!bool", "!!int", "!!float":
		var v any
		if err := n.Decode(&v); err != nil {
			return nil, t.at(n, "%v", err)
		}
		return v, nil
	}
	return n.Value, nil
}

func escape(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

var compiled struct {
	once   sync.Once
	schema *jsonschema.Schema
	doc    any
	err    error
}

func schema() (*jsonschema.Schema, any) {
	compiled.once.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
		if err != nil {
			compiled.err = err
			return
		}
		compiled.doc = doc
		c := jsonschema.NewCompiler()
		const url = "https://pilotage.dev/schemas/pilotage.yaml.json"
		if compiled.err = c.AddResource(url, doc); compiled.err == nil {
			compiled.schema, compiled.err = c.Compile(url)
		}
	})
	if compiled.err != nil {
		panic("config: the embedded schema does not compile: " + compiled.err.Error())
	}
	return compiled.schema, compiled.doc
}

var printer = message.NewPrinter(language.English)

// validate checks the tree against the embedded schema and words each
// failure at the place it concerns.
func (t *tree) validate(val any) Diagnostics {
	sch, _ := schema()
	err := sch.Validate(val)
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return Diagnostics{{File: t.file, Line: 1, Column: 1, Message: err.Error()}}
	}
	var ds Diagnostics
	seen := map[string]bool{}
	for _, leaf := range leaves(ve, nil, nil) {
		for _, d := range t.diagnostics(leaf) {
			if key := d.Error(); !seen[key] {
				seen[key] = true
				ds = append(ds, d)
			}
		}
	}
	sort.SliceStable(ds, func(i, j int) bool {
		if ds[i].Line != ds[j].Line {
			return ds[i].Line < ds[j].Line
		}
		return ds[i].Column < ds[j].Column
	})
	return ds
}

// leaves are the failures without causes. Those under propertyNames
// validate a key as an instance of its own, at no location; they are
// given the key's, so the diagnostic points at the key. The object's
// location is taken from the propertyNames failure's parent (the $ref
// to severities): jsonschema v6.0.3 hands the propertyNames failure a
// location slice that later validation overwrites.
func leaves(ve *jsonschema.ValidationError, parent, key []string) []failure {
	if pn, ok := ve.ErrorKind.(*kind.PropertyNames); ok {
		key = append(slices.Clone(parent), pn.Property)
	}
	if len(ve.Causes) == 0 {
		if key != nil {
			leaf := *ve
			leaf.InstanceLocation = key
			return []failure{{&leaf, true}}
		}
		return []failure{{ve, false}}
	}
	var out []failure
	for _, c := range ve.Causes {
		out = append(out, leaves(c, ve.InstanceLocation, key)...)
	}
	return out
}

// failure is a schema failure without causes; ofKey when it concerns a
// key (propertyNames) rather than the value at the location.
type failure struct {
	*jsonschema.ValidationError
	ofKey bool
}

// diagnostics words one schema failure: each unknown key of an object
// (one failure names them all) at the key with the nearest allowed one,
// a wrong value at the value with what is allowed.
func (t *tree) diagnostics(f failure) Diagnostics {
	ve := f.ValidationError
	ptr := ""
	for _, s := range ve.InstanceLocation {
		ptr += "/" + escape(s)
	}
	where := "the top level"
	if ptr != "" {
		where = yamlPath(ve.InstanceLocation)
	}
	n := t.nodes[ptr]
	if f.ofKey {
		n = t.keys[ptr]
	}
	if n == nil {
		n = &yaml.Node{Line: 1, Column: 1}
	}
	switch k := ve.ErrorKind.(type) {
	case *kind.AdditionalProperties:
		allowed := allowedKeys(ve.SchemaURL)
		in := "in " + where
		if ptr == "" {
			in = "at the top level"
		}
		var ds Diagnostics
		for _, name := range k.Properties {
			kn := t.keys[ptr+"/"+escape(name)]
			if kn == nil {
				kn = n
			}
			d := t.at(kn, "unknown key %q %s", name, in)
			if near := suggest.Closest(name, allowed); near != "" {
				d.Message += fmt.Sprintf(" (did you mean %q?)", near)
			}
			d.Hint = "the keys here are " + strings.Join(allowed, ", ") + "; see docs/config.md"
			ds = append(ds, d)
		}
		return ds
	case *kind.Enum:
		d := t.at(n, "%s: %s", where, k.LocalizedString(printer))
		if strings.HasSuffix(ve.SchemaURL, "/$defs/severity") {
			d.Hint = "a severity is off, info, warning or error"
			if s, ok := k.Got.(string); ok {
				if near := suggest.Closest(s, []string{Off, Info, Warning, Error}); near != "" {
					d.Message += fmt.Sprintf(" (did you mean %q?)", near)
				}
			}
		}
		return Diagnostics{d}
	}
	d := t.at(n, "%s: %s", where, ve.ErrorKind.LocalizedString(printer))
	switch k := ve.ErrorKind.(type) {
	case *kind.Type:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = yamlType(w)
		}
		d.Message = fmt.Sprintf("%s: expected %s here, found %s", where, strings.Join(want, " or "), yamlType(k.Got))
	case *kind.Required:
		keys := make([]string, len(k.Missing))
		for i, m := range k.Missing {
			keys[i] = strconv.Quote(m)
		}
		what := "the key " + keys[0] + " is"
		if len(keys) > 1 {
			what = "the keys " + strings.Join(keys, " and ") + " are"
		}
		d.Message = fmt.Sprintf("%s: %s missing", where, what)
	}
	switch {
	case strings.HasSuffix(ve.SchemaURL, "/properties/lang"):
		d.Message = fmt.Sprintf("%s: %q is not a .pdl file", where, n.Value)
		d.Hint = "lang names the PDL file that defines the Language, relative to pilotage.yaml"
	case strings.HasSuffix(ve.SchemaURL, "/properties/reason"):
		d.Message = where + " is empty"
		d.Hint = "say why the findings are acceptable; the reason is shown with every finding it suppresses"
	case strings.Contains(ve.SchemaURL, "/$defs/ruleID"):
		d.Hint = "a rule ID is lower case with dashes, as --list-rules prints it"
	}
	return Diagnostics{d}
}

// yamlPath is a value's place as a YAML user writes it: keys joined by
// dots, list items by index (overrides[0].files).
func yamlPath(loc []string) string {
	var b strings.Builder
	for _, seg := range loc {
		if _, err := strconv.Atoi(seg); err == nil && b.Len() > 0 {
			fmt.Fprintf(&b, "[%s]", seg)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(seg)
	}
	return b.String()
}

// yamlType names a JSON Schema type in YAML's words.
func yamlType(t string) string {
	switch t {
	case "object":
		return "a mapping"
	case "array":
		return "a list"
	case "string":
		return "a string"
	case "number", "integer":
		return "a number"
	case "boolean":
		return "true or false"
	case "null":
		return "nothing (null)"
	}
	return t
}

// allowedKeys lists the properties the schema object holding the failed
// additionalProperties keyword defines, for the did-you-mean.
func allowedKeys(schemaURL string) []string {
	_, doc := schema()
	_, frag, _ := strings.Cut(schemaURL, "#")
	props, _ := field(lookup(doc, strings.TrimSuffix(frag, "/additionalProperties")), "properties").(map[string]any)
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// decode fills cfg from the validated tree; every type is as the schema
// says, so the assertions hold.
func (t *tree) decode(cfg *Config, top map[string]any) {
	if m, ok := top["rules"].(map[string]any); ok {
		cfg.Rules = t.severities(m, "/rules")
	}
	if s, ok := top["ignore"].([]any); ok {
		cfg.Ignore = t.patterns(s, "/ignore")
	}
	for i, o := range list(top["overrides"]) {
		p := "/overrides/" + strconv.Itoa(i)
		m := o.(map[string]any)
		cfg.Overrides = append(cfg.Overrides, Override{
			Files: t.patterns(m["files"].([]any), p+"/files"),
			Rules: t.severities(m["rules"].(map[string]any), p+"/rules"),
			From:  t.origin(p),
		})
	}
	for i, o := range list(top["suppress"]) {
		p := "/suppress/" + strconv.Itoa(i)
		m := o.(map[string]any)
		s := Suppression{Files: t.patterns(m["files"].([]any), p+"/files"), Reason: strings.TrimSpace(m["reason"].(string)), From: t.origin(p)}
		for j, id := range m["rules"].([]any) {
			s.Rules = append(s.Rules, RuleRef{ID: id.(string), From: t.origin(p + "/rules/" + strconv.Itoa(j))})
		}
		cfg.Suppress = append(cfg.Suppress, s)
	}
	if d, ok := top["defaults"].(map[string]any); ok {
		if v, ok := d["format"].(string); ok {
			cfg.Defaults.Format = String{v, t.origin("/defaults/format")}
		}
		if v, ok := d["strict"].(bool); ok {
			cfg.Defaults.Strict = Bool{v, t.origin("/defaults/strict")}
		}
		if v, ok := d["baseline"].(string); ok {
			cfg.Defaults.Baseline = String{v, t.origin("/defaults/baseline")}
		}
	}
	for i, o := range list(top["languages"]) {
		p := "/languages/" + strconv.Itoa(i)
		m := o.(map[string]any)
		cfg.Languages = append(cfg.Languages, LangBinding{
			Files: t.patterns(m["files"].([]any), p+"/files"), Lang: m["lang"].(string), From: t.origin(p + "/lang"),
		})
	}
}

func list(v any) []any {
	s, _ := v.([]any)
	return s
}

func (t *tree) origin(ptr string) Origin {
	n := t.nodes[ptr]
	return Origin{File: t.file, Line: n.Line, Column: n.Column}
}

func (t *tree) severities(m map[string]any, ptr string) map[string]RuleSetting {
	out := make(map[string]RuleSetting, len(m))
	for id, sev := range m {
		k := t.keys[ptr+"/"+escape(id)]
		out[id] = RuleSetting{Severity: sev.(string), From: Origin{File: t.file, Line: k.Line, Column: k.Column}}
	}
	return out
}

func (t *tree) patterns(s []any, ptr string) []Pattern {
	out := make([]Pattern, len(s))
	for i, g := range s {
		out[i] = Pattern{Glob: g.(string), From: t.origin(ptr + "/" + strconv.Itoa(i))}
	}
	return out
}

// checkPatterns reports patterns pathglob cannot read; run after decode.
// outsidePattern is the error of a pattern that matches no file because
// of a leading / or a .. segment, or nil: paths are matched relative to
// the file's directory, cleaned, so neither ever appears in one.
func outsidePattern(p Pattern) *Diagnostic {
	if !strings.HasPrefix(p.Glob, "/") && !slices.Contains(strings.Split(p.Glob, "/"), "..") {
		return nil
	}
	d := &Diagnostic{File: p.From.File, Line: p.From.Line, Column: p.From.Column}
	if clean := path.Clean(p.Glob); !strings.HasPrefix(p.Glob, "/") && clean != ".." && !strings.HasPrefix(clean, "../") {
		d.Message = fmt.Sprintf("pattern %q matches no file: paths are matched without .. segments", p.Glob)
		d.Hint = fmt.Sprintf("write it %q", clean)
		return d
	}
	d.Message = fmt.Sprintf("pattern %q matches no file: patterns are relative to the directory of pilotage.yaml and never reach outside it", p.Glob)
	d.Hint = "write the path from pilotage.yaml's directory, or move pilotage.yaml up to a directory that holds the files"
	return d
}

func (cfg *Config) checkPatterns() Diagnostics {
	var ds Diagnostics
	check := func(ps []Pattern) {
		for _, p := range ps {
			if err := pathglob.Validate(p.Glob); err != nil {
				ds = append(ds, &Diagnostic{File: p.From.File, Line: p.From.Line, Column: p.From.Column, Message: err.Error()})
			} else if d := outsidePattern(p); d != nil {
				ds = append(ds, d)
			}
		}
	}
	check(cfg.Ignore)
	for _, o := range cfg.Overrides {
		check(o.Files)
	}
	for _, s := range cfg.Suppress {
		check(s.Files)
	}
	for _, l := range cfg.Languages {
		check(l.Files)
	}
	return ds
}
