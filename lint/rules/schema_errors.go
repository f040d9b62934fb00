package rules

import (
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// This file words JSON Schema violations as findings people can act on,
// for the schema rule (documents against the embedded schemas) and
// context-schema and entry-schemas (schemas against their metaschema).

// describe says what is wrong at v's place, naming the value there as
// subject: `"id" must be a string, not a number`. v comes from
// pilotage.Violations, which has already dropped the noise of alternatives.
func describe(v pilotage.SchemaViolation, subject string) string {
	switch k := v.Kind.(type) {
	case *kind.Type:
		var want []string
		for _, w := range k.Want {
			if w == "boolean" {
				want = append(want, "true", "false") // reads better than "a boolean"
				continue
			}
			want = append(want, typeWord(w))
		}
		return fmt.Sprintf("%s must be %s, not %s", subject, orList(want), typeWord(k.Got))
	case *kind.Required:
		noun := "member"
		if len(k.Missing) > 1 {
			noun = "members"
		}
		return fmt.Sprintf("%s is missing the required %s %s", subject, noun, quoteAll(k.Missing))
	case *kind.MinItems:
		if k.Want == 1 {
			return subject + " must not be empty"
		}
		return fmt.Sprintf("%s must have at least %d item(s), but has %d", subject, k.Want, k.Got)
	case *kind.Minimum:
		return fmt.Sprintf("%s must be at least %s, but is %s", subject, k.Want.RatString(), k.Got.RatString())
	}
	return subject + ": " + v.Message
}

// subject names the value at pointer in messages: `"id"`, `languages[0]`,
// or root for the whole document.
func subject(pointer, root string) string {
	if pointer == "" {
		return root
	}
	i := strings.LastIndexByte(pointer, '/')
	last := pointer[i+1:]
	if last != "" && strings.Trim(last, "0123456789") == "" && i > 0 {
		return indexLabel(pointer)
	}
	return report.Quote(unescapeToken(last))
}

// typeWord names a JSON type with its article, as a person would.
func typeWord(t string) string {
	switch t {
	case "boolean":
		return "true or false"
	case "null":
		return "null"
	case "integer", "object", "array":
		return "an " + t
	}
	return "a " + t
}

// orList joins words with commas and a final "or".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// compileOffline compiles doc as the JSON Schema called name without
// loading anything from outside it, and refuses one whose "$ref" chain
// loops without consuming input: it compiles, but every validation that
// reaches it fails. Probing with an empty object finds such loops at the
// root.
func compileOffline(name string, doc any) error {
	sch, err := pilotage.CompileOffline(name, doc)
	if err != nil {
		return err
	}
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

// reportCompileFailure reports why the schema member of owner, at ptr,
// did not compile (err from compileOffline(member, …)), worded from
// pilotage.ExplainCompileError's facts the same way for every schema lint
// compiles, never with the library's own text or internal URLs.
func reportCompileFailure(p *lint.Pass, ptr, owner, member string, err error) {
	f := pilotage.ExplainCompileError(member, err)
	switch {
	case f.Violations != nil:
		for _, v := range f.Violations {
			p.Report(ptr+v.Pointer, fmt.Sprintf("%s: %s is not a valid JSON Schema: %s", owner, member, describe(v, subject(v.Pointer, "the schema"))),
				"fix the keyword so that the schema validates against its draft's metaschema (https://json-schema.org/specification)")
		}
		return
	case f.Outside != "":
		p.Report(ptr, fmt.Sprintf("%s: %s refers to %q, outside itself; lint works offline and fetches nothing", owner, member, report.Clip(f.Outside)),
			fmt.Sprintf("make %s self-contained: copy the referenced schema under \"$defs\" and refer to it as \"#/$defs/<name>\"; a \"$schema\" must name a standard draft", member))
		return
	case f.Dangling != "":
		err = fmt.Errorf("a \"$ref\" points at %q, which does not exist in it", report.Clip(f.Dangling))
	}
	if err == nil {
		return
	}
	hint := fmt.Sprintf("%s must be self-contained: a \"$ref\" may point only inside it, such as \"#/$defs/item\"", member)
	if errors.Is(err, errRefCycle) {
		hint = "break the loop: some schema along the \"$ref\" chain must describe the value itself instead of only referring on"
	}
	p.Report(ptr, fmt.Sprintf("%s: %s does not compile: %v", owner, member, err), hint)
}
