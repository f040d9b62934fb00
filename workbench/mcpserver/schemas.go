package mcpserver

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/model/syntax"
)

// toolsJSON holds every tool's input and output schema, as data in one
// file that reads like the tables of binding.md.
//
//go:embed tools.json
var toolsJSON []byte

type toolDef struct {
	Description string         `json:"description"`
	Input       map[string]any `json:"input"`
	Output      map[string]any `json:"output"`
}

type toolFile struct {
	Error      map[string]any     `json:"error"`
	Diagnostic map[string]any     `json:"diagnostic"`
	Tools      map[string]toolDef `json:"tools"`
}

// toolSchemas is one tool's published schemas and its compiled input check.
type toolSchemas struct {
	description string
	input       map[string]any
	output      map[string]any
	check       *jsonschema.Schema
	// enums are the input members whose published schema lists their
	// values: the service judges them, whatever JSON value they hold
	// (enumsAsText).
	enums []string
}

// declared returns the member of the tool's input schema that the
// service's decoding reads name as, or false: encoding/json matches a
// struct field's name regardless of case.
func (t toolSchemas) declared(name string) (string, bool) {
	props, _ := t.input["properties"].(map[string]any)
	for p := range props {
		if strings.EqualFold(p, name) {
			return p, true
		}
	}
	return "", false
}

// loadTools reads tools.json and resolves every $ref into a self-contained
// schema. Generic clients (the MCP Inspector validates with Ajv's default
// draft) cannot fetch the embedded schemas' $id URLs and may not know
// draft 2020-12, so the published schemas carry no $ref, $id or $schema.
func loadTools() (map[string]toolSchemas, error) {
	var f toolFile
	if err := json.Unmarshal(toolsJSON, &f); err != nil {
		return nil, fmt.Errorf("tools.json: %w", err)
	}
	local := map[string]any{"diagnostic": f.Diagnostic}
	errSchema, err := inline(f.Error, local, 0)
	if err != nil {
		return nil, err
	}
	out := map[string]toolSchemas{}
	for name, d := range f.Tools {
		in, err := inline(d.Input, local, 0)
		if err != nil {
			return nil, fmt.Errorf("tool %s input: %w", name, err)
		}
		resp, err := inline(d.Output, local, 0)
		if err != nil {
			return nil, fmt.Errorf("tool %s output: %w", name, err)
		}
		// A tool answers with its response or with the request-error
		// envelope (§8); MCP wants an object schema at the root.
		output := map[string]any{"type": "object", "anyOf": []any{resp, errSchema}}
		check, enums := typesOnly(in.(map[string]any))
		compiled, err := compile(name, check)
		if err != nil {
			return nil, err
		}
		out[name] = toolSchemas{description: d.Description, input: in.(map[string]any), output: output, check: compiled, enums: enums}
	}
	return out, nil
}

// maxInlineDepth guards against a reference cycle in the schema files.
const maxInlineDepth = 16

// inline returns v with every {"$ref": name} replaced by the named schema
// (an embedded root-package schema, "x.json", or a local one) and $id and
// $schema dropped.
func inline(v any, local map[string]any, depth int) (any, error) {
	if depth > maxInlineDepth {
		return nil, fmt.Errorf("schema references nest deeper than %d", maxInlineDepth)
	}
	switch x := v.(type) {
	case map[string]any:
		if ref, ok := x["$ref"].(string); ok {
			target, err := resolve(ref, local)
			if err != nil {
				return nil, err
			}
			return inline(target, local, depth+1)
		}
		m := make(map[string]any, len(x))
		for k, val := range x {
			if k == "$id" || k == "$schema" {
				continue
			}
			r, err := inline(val, local, depth)
			if err != nil {
				return nil, err
			}
			m[k] = r
		}
		return m, nil
	case []any:
		a := make([]any, len(x))
		for i, val := range x {
			r, err := inline(val, local, depth)
			if err != nil {
				return nil, err
			}
			a[i] = r
		}
		return a, nil
	}
	return v, nil
}

func resolve(ref string, local map[string]any) (any, error) {
	if s, ok := local[ref]; ok {
		return s, nil
	}
	if !strings.HasSuffix(ref, ".json") {
		return nil, fmt.Errorf("unknown schema reference %q", ref)
	}
	src, err := pilotage.SchemaSource(ref)
	if err != nil {
		return nil, fmt.Errorf("schema reference %q: %w", ref, err)
	}
	var v any
	if err := json.Unmarshal(src, &v); err != nil {
		return nil, fmt.Errorf("schema %q: %w", ref, err)
	}
	return v, nil
}

// compile compiles a check schema with the root package's compiler, so
// it follows the same draft and never loads a reference from anywhere.
// The round trip through JSON gives jsonschema the json.Number values it
// compares numbers with.
func compile(name string, schema any) (*jsonschema.Schema, error) {
	raw, err := json.Marshal(schema)
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	return pilotage.CompileOffline("tool-"+name+".json", doc)
}

// dataMembers are the request members that carry the caller's data: a
// program, input or context of the wrong shape is answered with a
// diagnostic (syntax, input_binding, context_binding), never a request
// error (§8), so the argument check leaves them unconstrained.
var dataMembers = []string{"program", "input", "context"}

// typesOnly returns the check schema of a published input schema, each
// member's JSON type and nothing else, and the members it leaves to the
// service as enums. The published enums, required members and minimums
// describe well-formed requests for clients, but every value rule is the
// service's to apply, in the operation's own order: checked here,
// `{"program_ref": "prog.nope", "trace_level": "x"}` was refused for its
// trace_level before the engine could answer not_found, the first failing
// check of §6.5.2. An enum member keeps no type either: §6.5.2 asks
// "whether trace_level is recognized", which a number or an empty string
// is not, so the service refuses it at that check (enumsAsText). The
// data members accept any value. Any other member of the wrong JSON type
// cannot be handed to the service at all, so it alone is refused before
// the operation.
func typesOnly(in map[string]any) (check map[string]any, enums []string) {
	check = map[string]any{"type": in["type"]}
	props, ok := in["properties"].(map[string]any)
	if !ok {
		return check, nil
	}
	types := make(map[string]any, len(props))
	for name, p := range props {
		member := map[string]any{}
		published, _ := p.(map[string]any) // a boolean schema has no type to keep
		_, isEnum := published["enum"]
		if t, has := published["type"]; has && !isEnum && !slices.Contains(dataMembers, name) {
			member["type"] = t
		}
		if isEnum {
			enums = append(enums, name)
		}
		types[name] = member
	}
	check["properties"] = types
	return check, enums
}

// forLanguage specialises a per-Language tool's published schemas: the
// description names the Language, a text-range Language takes its program
// as a string (binding.md), and a declared context_schema describes
// context.
func (t toolSchemas) forLanguage(entry pilotage.LanguageEntry) (toolSchemas, error) {
	t.description = fmt.Sprintf(t.description, entry.ID)
	props, ok := t.input["properties"].(map[string]any)
	if !ok {
		return t, nil
	}
	props = cloneMap(props)
	if ps := syntax.ProgramSchema(entry.Locator); ps != nil && props["program"] != nil {
		props["program"] = ps
	}
	if _, has := props["context"]; has && len(entry.ContextSchema) > 0 {
		var cs any
		if err := json.Unmarshal(entry.ContextSchema, &cs); err != nil {
			return t, fmt.Errorf("%s: context_schema: %w", entry.ID, err)
		}
		props["context"] = cs
	}
	in := cloneMap(t.input)
	in["properties"] = props
	t.input = in
	return t, nil
}

func cloneMap(m map[string]any) map[string]any {
	c := make(map[string]any, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}
