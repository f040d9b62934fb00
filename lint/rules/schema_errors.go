package rules

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	pilotage "github.com/pilotage-dev/pilotage"
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
