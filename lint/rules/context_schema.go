package rules

import (
	"errors"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/lint"
	"github.com/pilotage-dev/pilotage/lint/jsonpos"
	"github.com/pilotage-dev/pilotage/lint/report"
)

// contextSchema checks that a Language's `context_schema` (§5.1) is a
// JSON Schema that compiles: validation checks every context against it
// (§6.4), and a schema that does not compile makes every context
// uncheckable. The schema is compiled offline: a `$ref` outside the
// schema is reported, never fetched, so linting a hostile manifest reads
// no file and opens no connection.
var contextSchema = &lint.Rule{
	ID:       "context-schema",
	Category: lint.CatManifest,
	Section:  "5.1",
	Severity: report.Error,
	Summary:  "`context_schema` must be a self-contained JSON Schema that compiles (draft 2020-12 unless `$schema` says otherwise).",
	Check: func(p *lint.Pass) {
		for _, l := range p.Languages {
			n := l.Node.Get("context_schema")
			if !n.Is(jsonpos.Object) {
				continue // absent, a boolean schema, or malformed (the schema rule)
			}
			ptr := l.Pointer + "/context_schema"
			if depthOver(n, maxSchemaDepth) {
				p.ReportAs(report.Warning, ptr, false,
					fmt.Sprintf("%s: context_schema nests more than %d levels deep, so this tool did not compile it", langLabel(l), maxSchemaDepth),
					"flatten the schema with \"$defs\" and \"$ref\"; no context needs this depth, and checking it would cost time quadratic in the depth")
				continue
			}
			err := compileOffline(n.Value())
			f := pilotage.ExplainCompileError(contextSchemaName, err)
			switch {
			case f.Violations != nil:
				for _, v := range f.Violations {
					p.Report(ptr+v.Pointer, fmt.Sprintf("%s: context_schema is not a valid JSON Schema: %s", langLabel(l), describe(v, subject(v.Pointer, "the schema"))),
						"fix the keyword so that the schema validates against its draft's metaschema (https://json-schema.org/specification)")
				}
				continue
			case f.Outside != "":
				p.Report(ptr, fmt.Sprintf("%s: context_schema refers to %q, outside itself; lint works offline and fetches nothing", langLabel(l), f.Outside),
					"make context_schema self-contained: copy the referenced schema under \"$defs\" and refer to it as \"#/$defs/<name>\"; a \"$schema\" must name a standard draft")
				continue
			case f.Dangling != "":
				err = fmt.Errorf("a \"$ref\" points at %q, which does not exist in it", f.Dangling)
			}
			if err != nil {
				hint := "context_schema must be self-contained: a \"$ref\" may point only inside it, such as \"#/$defs/user\""
				if errors.Is(err, errRefCycle) {
					hint = "break the loop: some schema along the \"$ref\" chain must describe the value itself instead of only referring on"
				}
				p.Report(ptr, fmt.Sprintf("%s: context_schema does not compile: %v", langLabel(l), err), hint)
			}
		}
	},
}

// contextSchemaName is what the rule names a context_schema for
// pilotage.CompileOffline and ExplainCompileError.
const contextSchemaName = "context_schema"

// compileOffline compiles doc as a JSON Schema without loading anything
// from outside it.
func compileOffline(doc any) error {
	sch, err := pilotage.CompileOffline(contextSchemaName, doc)
	if err != nil {
		return err
	}
	// A "$ref" chain that loops without consuming input compiles, but
	// every validation that reaches it fails; probing with an empty
	// object finds the loops at the root.
	if ve, ok := sch.Validate(map[string]any{}).(*jsonschema.ValidationError); ok && hasRefCycle(ve) {
		return errRefCycle
	}
	return nil
}

var errRefCycle = errors.New("its \"$ref\" chain loops back to itself without consuming any input, so every validation fails")

// hasRefCycle reports whether a validation failed on a reference cycle.
func hasRefCycle(ve *jsonschema.ValidationError) bool {
	if _, ok := ve.ErrorKind.(*kind.RefCycle); ok {
		return true
	}
	for _, c := range ve.Causes {
		if hasRefCycle(c) {
			return true
		}
	}
	return false
}

// maxSchemaDepth bounds the nesting of a context_schema lint compiles:
// metaschema validation costs time quadratic in the depth (a 2000-level
// schema takes seconds), and real schemas stay far below this.
const maxSchemaDepth = 128

// depthOver reports whether n nests more than limit levels of objects and
// arrays.
func depthOver(n *jsonpos.Node, limit int) bool {
	if limit < 0 {
		return true
	}
	for _, m := range n.Members {
		if depthOver(m.Value, limit-1) {
			return true
		}
	}
	for _, e := range n.Elems {
		if depthOver(e, limit-1) {
			return true
		}
	}
	return false
}

func init() { register(contextSchema) }
