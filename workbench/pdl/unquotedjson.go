package pdl

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// jsonKeywords are the statements whose value is JSON: a JSON Schema or
// an entry's fixed result (docs/pdl.md, "Catalog entries").
var jsonKeywords = map[string]bool{"input_schema": true, "output_schema": true, "context_schema": true, "returns": true}

// unquotedJSON is the length of the JSON value left without its
// back-quotes that src starts, t being its first token and kw the
// statement's keyword, when t is that statement's first value; 0 when
// there is none. PDL reads such a value as a block whose statements are
// strings and characters no token starts with, each an error of its
// own (returns {"items": ["bread"]} was five): an object (a { whose
// first member is a string and a :, on its line or the next) or an
// array ([), through its closing bracket, over several lines if it
// spans them.
func unquotedJSON(t token, kw string, src string) int {
	if !jsonKeywords[kw] {
		return 0
	}
	switch {
	case t.typ == tokInvalid && t.val == "[":
	case t.typ == tokPunct && t.val == "{" && member(src[1:]):
	default:
		return 0
	}
	return jsonLen(src)
}

// member reports whether rest, the text after a {, starts with a JSON
// object's first member: a string and a colon, line ends aside.
func member(rest string) bool {
	rest = strings.TrimLeft(rest, " \t\r\n")
	if !strings.HasPrefix(rest, `"`) {
		return false
	}
	n := stringLen(rest)
	return strings.HasPrefix(strings.TrimLeft(rest[n:], " \t"), ":")
}

// jsonLen is the length of the JSON value at the start of s, which
// starts with { or [: through the bracket that closes it, strings
// skipped; without one, to the end of the first line, so a bracket left
// open takes no more than its own line.
func jsonLen(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			i += stringLen(s[i:]) - 1
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return i + 1
			}
		}
	}
	return lineLen(s)
}

// jsonFinding reports value, JSON left without its back-quotes at pos as
// the value of kw, with a hint that quotes it: in back-quotes unless it
// holds one.
func jsonFinding(name string, pos Pos, kw, value string) report.Finding {
	end := pos
	end.Advance(value)
	shown := value
	if strings.Contains(value, "\n") || len([]rune(value)) > 40 {
		shown = value[:1] + "…" + value[len(value)-1:]
	}
	if strings.Contains(value, "`") {
		// A back-quote of its own would end the raw string: it goes in
		// double quotes, as an expression holding one does (exprFinding).
		return Errorf(RuleSyntax, pos.In(name), end.In(name), fmt.Sprintf("put it in quotes: %s %s", kw, strconv.Quote(shown)),
			fmt.Sprintf("the JSON of %s needs quotes", kw))
	}
	return Errorf(RuleSyntax, pos.In(name), end.In(name), fmt.Sprintf("put it in back-quotes: %s `%s`", kw, shown),
		fmt.Sprintf("the JSON of %s needs back-quotes", kw))
}
