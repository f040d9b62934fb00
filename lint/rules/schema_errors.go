package rules

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	pilotage "github.com/pilotage-dev/pilotage"
)

// This file turns JSON Schema validation errors into findings people can
// act on, for the schema rule (documents against the embedded schemas)
// and context-schema (schemas against their metaschema).

// schemaProblem is one leaf failure of a validation, at a JSON Pointer
// into the validated value.
type schemaProblem struct {
	pointer string
	kind    jsonschema.ErrorKind
}

// schemaProblems flattens a validation error into its leaf failures,
// sorted by pointer, and drops the noise of alternatives (anyOf, oneOf,
// `type` lists): a type mismatch at a place that also has another failure
// at or below it only says that one alternative did not apply, and the
// other failure is the one to fix. Mismatches at one place are merged
// into one that lists every accepted type. A nil error gives nil; an
// error that is not a validation error gives nil too (callers report it
// as it is).
func schemaProblems(err error) []schemaProblem {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil
	}
	var leaves []schemaProblem
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			leaves = append(leaves, schemaProblem{pilotage.PointerFromTokens(e.InstanceLocation), e.ErrorKind})
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	sort.SliceStable(leaves, func(i, j int) bool { return leaves[i].pointer < leaves[j].pointer })

	var out []schemaProblem
	for i, lf := range leaves {
		t, isType := lf.kind.(*kind.Type)
		if !isType {
			out = append(out, lf)
			continue
		}
		if explainedElsewhere(leaves, i) {
			continue
		}
		if n := len(out); n > 0 && out[n-1].pointer == lf.pointer {
			if prev, ok := out[n-1].kind.(*kind.Type); ok {
				want := append(slices.Clone(prev.Want), t.Want...)
				slices.Sort(want)
				out[n-1].kind = &kind.Type{Got: prev.Got, Want: slices.Compact(want)}
				continue
			}
		}
		out = append(out, lf)
	}
	return out
}

// explainedElsewhere reports whether leaf i, a type mismatch, sits at or
// above a failure of another kind.
func explainedElsewhere(leaves []schemaProblem, i int) bool {
	p := leaves[i].pointer
	for j, o := range leaves {
		if j == i {
			continue
		}
		if _, isType := o.kind.(*kind.Type); isType && o.pointer == p {
			continue
		}
		if o.pointer == p || strings.HasPrefix(o.pointer, p+"/") {
			return true
		}
	}
	return false
}

var printer = message.NewPrinter(language.English)

// describe says what is wrong, naming the value as subject: `"id" must
// be a string, not a number`.
func (sp schemaProblem) describe(subject string) string {
	switch k := sp.kind.(type) {
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
	return subject + ": " + sp.kind.LocalizedString(printer)
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
	return strconv.Quote(unescapeToken(last))
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
