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
// own (returns {"items": ["bread"]} was five): an object ({) or an
// array ([), through its closing bracket, over several lines if it
// spans them (jsonLen).
func unquotedJSON(t, kw token, src string) int {
	if !jsonKeywords[kw.val] {
		return 0
	}
	switch {
	case t.typ == tokInvalid && t.val == "[":
	case t.typ == tokPunct && t.val == "{":
		// None of these keywords takes a block: a { is the JSON's,
		// however it goes on ({}, {items: …}).
	default:
		return 0
	}
	n, _ := jsonLen(src, int(kw.pos.Column)-1)
	return n
}

// jsonLen is the length of the JSON value at the start of s, which
// starts with { or [, and the brackets it leaves open, to close in
// turn: through the bracket that closes it, strings skipped. Without
// one, it ends before the first line that is the enclosing block's,
// not the value's: one indented less than indent, its statement's
// keyword (the } of its entry), or as much and starting with a word
// (the next statement).
func jsonLen(s string, indent int) (int, string) {
	var open []byte
	closers := func() string {
		c := make([]byte, len(open))
		for i, o := range open {
			c[len(open)-1-i] = o + 2 // { is } less 2, and [ is ] less 2
		}
		return string(c)
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			i += stringLen(s[i:]) - 1
		case '{', '[':
			open = append(open, s[i])
		case '}', ']':
			if open = open[:len(open)-1]; len(open) == 0 {
				return i + 1, ""
			}
		case '\n':
			rest := s[i+1:]
			line := strings.TrimLeft(rest, " \t\r")
			if d := len(rest) - len(line); lineLen(line) > 0 && (d < indent || d == indent && isWordByte(line[0], 0)) {
				return len(strings.TrimRight(s[:i], " \t\r")), closers()
			}
		}
	}
	return len(s), closers()
}

// jsonFinding reports value, JSON left without its back-quotes at pos as
// the value of kw, with a hint that quotes it: in back-quotes unless it
// holds one.
func jsonFinding(name string, pos Pos, kw, value string) report.Finding {
	end := pos
	end.Advance(value)
	// A bracket left open is closed in the hint, so that it holds once
	// followed.
	_, closers := jsonLen(value, 0)
	shown := value + closers
	if strings.Contains(shown, "\n") || len([]rune(shown)) > 40 {
		shown = shown[:1] + "…" + shown[len(shown)-1:]
	}
	needs := "back-quotes"
	if closers != "" {
		needs += " and " + closers + " to close it"
	}
	if strings.Contains(value, "`") {
		// A back-quote of its own would end the raw string: it goes in
		// double quotes, as an expression holding one does (exprFinding).
		return Errorf(RuleSyntax, pos.In(name), end.In(name), fmt.Sprintf("put it in quotes: %s %s", kw, strconv.Quote(shown)),
			fmt.Sprintf("the JSON of %s needs quotes", kw))
	}
	return Errorf(RuleSyntax, pos.In(name), end.In(name), fmt.Sprintf("put it in back-quotes: %s `%s`", kw, shown),
		fmt.Sprintf("the JSON of %s needs %s", kw, needs))
}
