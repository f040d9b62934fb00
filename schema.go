package pilotage

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// schemaFS holds the JSON Schemas (draft 2020-12) of the wire structures.
//
//go:embed schemas/*.json
var schemaFS embed.FS

// SchemaBase is the URI prefix of the embedded schemas' $id values.
const SchemaBase = "https://pilotage.dev/schema/1.1/"

// Schema names, one per structure.
const (
	SchemaManifest     = "manifest.json"
	SchemaLanguage     = "language.json"
	SchemaGuide        = "guide.json"
	SchemaCatalogEntry = "catalog-entry.json"
	SchemaSnapshot     = "snapshot.json"
	SchemaPlan         = "plan.json"
	SchemaTrace        = "trace.json"
	SchemaOutcome      = "outcome.json"
	SchemaRiskHints    = "risk-hints.json"
	SchemaCapabilities = "capabilities.json"
)

var (
	schemasOnce sync.Once
	schemas     map[string]*jsonschema.Schema
	schemasErr  error
)

// Schema returns the compiled embedded schema with the given name
// (SchemaManifest, …). The schemas are compiled once, on first use.
func Schema(name string) (*jsonschema.Schema, error) {
	schemasOnce.Do(compileSchemas)
	if schemasErr != nil {
		return nil, schemasErr
	}
	s, ok := schemas[name]
	if !ok {
		return nil, fmt.Errorf("no embedded schema %q", name)
	}
	return s, nil
}

// SchemaSource returns the raw text of an embedded schema, for docs and
// for tools that want to publish it.
func SchemaSource(name string) ([]byte, error) { return schemaFS.ReadFile("schemas/" + name) }

func compileSchemas() {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	entries, err := schemaFS.ReadDir("schemas")
	if err != nil {
		schemasErr = err
		return
	}
	var names []string
	for _, e := range entries {
		data, err := schemaFS.ReadFile("schemas/" + e.Name())
		if err != nil {
			schemasErr = err
			return
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			schemasErr = fmt.Errorf("schemas/%s: %w", e.Name(), err)
			return
		}
		if err := c.AddResource(SchemaBase+e.Name(), doc); err != nil {
			schemasErr = err
			return
		}
		names = append(names, e.Name())
	}
	schemas = make(map[string]*jsonschema.Schema, len(names))
	for _, n := range names {
		s, err := c.Compile(SchemaBase + n)
		if err != nil {
			schemasErr = err
			return
		}
		schemas[n] = s
	}
}

// SchemaViolation is one leaf failure of a JSON Schema validation.
type SchemaViolation struct {
	// Pointer is the RFC 6901 JSON Pointer of the failing value.
	Pointer string
	// Message says what is wrong, in English.
	Message string
	// Schema is the absolute location of the schema whose keyword failed
	// ("https://pilotage.dev/schema/1.1/manifest.json#/properties/pilotage"),
	// for a tool that cites what defines the value (lint's section table);
	// empty when the error was not a validation error.
	Schema string
	// Kind is the failure as the JSON Schema library describes it, for a
	// tool that words its own message (lint); nil when the error was not
	// a validation error.
	Kind jsonschema.ErrorKind
}

var printer = message.NewPrinter(language.English)

// Violations flattens a jsonschema validation error into its leaf causes,
// sorted by pointer, so every problem can be reported at its own place.
// It drops the noise of alternatives (anyOf, oneOf, a list of types): a
// type mismatch at a place that also has a failure of another kind at or
// below it only says that one alternative did not apply, and the other
// failure is the one to fix ("got string, want array" about a correct
// string that missed an enum is noise). Type mismatches left at one place
// are merged into one listing every accepted type. A nil error gives nil;
// an error of another type gives one violation at "".
func Violations(err error) []SchemaViolation {
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []SchemaViolation{{Message: err.Error()}}
	}
	var leaves []SchemaViolation
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			leaves = append(leaves, SchemaViolation{Pointer: PointerFromTokens(e.InstanceLocation), Schema: e.SchemaURL, Kind: e.ErrorKind})
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	sort.SliceStable(leaves, func(i, j int) bool { return leaves[i].Pointer < leaves[j].Pointer })

	var out []SchemaViolation
	for i, lf := range leaves {
		t, isType := lf.Kind.(*kind.Type)
		if isType && explainedElsewhere(leaves, i) {
			continue
		}
		if n := len(out); isType && n > 0 && out[n-1].Pointer == lf.Pointer {
			if prev, ok := out[n-1].Kind.(*kind.Type); ok {
				want := append(slices.Clone(prev.Want), t.Want...)
				slices.Sort(want)
				out[n-1].Kind = &kind.Type{Got: prev.Got, Want: slices.Compact(want)}
				continue
			}
		}
		out = append(out, lf)
	}
	for i := range out {
		out[i].Message = out[i].Kind.LocalizedString(printer)
	}
	return out
}

// explainedElsewhere reports whether leaf i, a type mismatch, sits at or
// above a failure that is not a type mismatch at its own place.
func explainedElsewhere(leaves []SchemaViolation, i int) bool {
	p := leaves[i].Pointer
	for j, o := range leaves {
		if j == i {
			continue
		}
		if _, isType := o.Kind.(*kind.Type); isType && o.Pointer == p {
			continue
		}
		if o.Pointer == p || strings.HasPrefix(o.Pointer, p+"/") {
			return true
		}
	}
	return false
}

// PointerFromTokens builds an RFC 6901 JSON Pointer from unescaped tokens.
func PointerFromTokens(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(EscapePointerToken(t))
	}
	return b.String()
}

var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// EscapePointerToken escapes one reference token for a JSON Pointer.
func EscapePointerToken(t string) string {
	if !strings.ContainsAny(t, "~/") {
		return t
	}
	return pointerEscaper.Replace(t)
}

// CompileOffline compiles doc, a decoded JSON Schema (draft 2020-12 unless
// it says otherwise), loading nothing from outside it: a "$ref" to another
// document is a compile error naming the schema, never a file or network
// read. Schemas in manifests, catalogs and PDL files are data from others,
// so compiling one must not reach the disk or the network.
func CompileOffline(name string, doc any) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(offlineLoader(name))
	url := OfflineBase + name
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

// offlineLoader loads nothing; its value names the schema a reference was
// found in.
type offlineLoader string

func (o offlineLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("%s is outside %s and is not fetched", url, string(o))
}

// OfflineBase is the base URI CompileOffline names schemas under: a
// hierarchical one, so a relative "$ref" resolves to a URL the loader is
// asked for (and refuses) instead of vanishing.
const OfflineBase = "mem://pilotage/"

// CompileFailure is why CompileOffline refused a schema, in the parts a
// message needs; at most one is set, and none for any other error (then
// the error's own text is all there is to say).
type CompileFailure struct {
	// Violations are where the schema breaks its draft's metaschema, by
	// pointer into the schema.
	Violations []SchemaViolation
	// Outside is a document the schema names by "$ref" or "$schema" but
	// does not contain: an absolute URL, or a relative one as written.
	Outside string
	// Dangling is a "$ref" into the schema that points at nothing, as a
	// fragment ("#/$defs/item").
	Dangling string
}

// ExplainCompileError takes apart an error of CompileOffline(name, …), so
// that every tool words a bad schema from the same facts instead of
// matching the JSON Schema library's errors and URLs itself.
func ExplainCompileError(name string, err error) CompileFailure {
	var sve *jsonschema.SchemaValidationError
	var lue *jsonschema.LoadURLError
	var nf *jsonschema.JSONPointerNotFoundError
	switch {
	case errors.As(err, &sve):
		return CompileFailure{Violations: Violations(sve.Err)}
	case errors.As(err, &lue):
		return CompileFailure{Outside: strings.TrimPrefix(lue.URL, OfflineBase)}
	case errors.As(err, &nf):
		return CompileFailure{Dangling: strings.TrimPrefix(nf.URL, OfflineBase+name)}
	}
	return CompileFailure{}
}
