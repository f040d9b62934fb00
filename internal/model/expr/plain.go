package expr

import (
	"regexp"
	"strings"
)

// cel-go words its errors for the people who write CEL's grammar: ANTLR's
// token names (NUM_FLOAT, '<EOF>') and the checker's function names
// (_+_, _[_]). A program's author, and the model the diagnostic is for
// (§5.5), get them in the author's words, with a hint where there is an
// obvious fix.

var (
	unrecognized = regexp.MustCompile(`^Syntax error: token recognition error at: '(.*)'$`)
	mismatched   = regexp.MustCompile(`^Syntax error: (?:mismatched|extraneous) input '(.*)' expecting (.*)$`)
	missingAt    = regexp.MustCompile(`^Syntax error: missing '(.*)' at '(.*)'$`)
	noOverload   = regexp.MustCompile(`^found no matching overload for '(.*)' applied to '\((.*)\)'$`)
)

// operators are the checker's names of CEL's operators, as written.
var operators = map[string]string{
	"_+_": "+", "_-_": "-", "_*_": "*", "_/_": "/", "_%_": "%",
	"_<_": "<", "_<=_": "<=", "_>_": ">", "_>=_": ">=", "_==_": "==", "_!=_": "!=",
	"_&&_": "&&", "_||_": "||", "!_": "!", "-_": "unary -", "_[_]": "[ ]", "_?_:_": "?:", "@in": "in",
}

// plain is the message and hint of cel-go's message m, in the author's
// words. A message it does not know is kept as cel-go wrote it.
func plain(m string) (msg, hint string) {
	if g := unrecognized.FindStringSubmatch(m); g != nil {
		if tok := g[1]; tok != "" && (tok[0] == '\'' || tok[0] == '"') {
			return "Syntax error: a string is never closed: " + tok, "end it with the quote it starts with: " + tok + tok[:1]
		}
		return "Syntax error: unexpected character '" + g[1] + "'", ""
	}
	if g := mismatched.FindStringSubmatch(m); g != nil {
		want := expected(g[2])
		if g[1] != "<EOF>" {
			return "Syntax error: unexpected '" + g[1] + "'; expected " + want, ""
		}
		if want == "a value" {
			return "Syntax error: the expression ends where a value should follow", "complete it, or remove what it ends with"
		}
		// A list, map or condition left open: [1, 2 wants ']' or ','.
		for _, closer := range []string{"']'", "'}'", "')'"} {
			if strings.Contains(g[2], closer) {
				return "Syntax error: missing " + closer + " at the end", "close what is open: add " + closer
			}
		}
		if strings.Contains(g[2], "':'") {
			return "Syntax error: missing ':' at the end", "a choice is written cond ? a : b: add ':' and the value when cond is false"
		}
		return "Syntax error: the expression ends where " + want + " should follow", ""
	}
	if g := missingAt.FindStringSubmatch(m); g != nil {
		if g[2] == "<EOF>" {
			return "Syntax error: missing '" + g[1] + "' at the end", "close what is open: add '" + g[1] + "'"
		}
		return "Syntax error: missing '" + g[1] + "' before '" + g[2] + "'", ""
	}
	if g := noOverload.FindStringSubmatch(m); g != nil {
		what, ok := operators[g[1]]
		if ok {
			what = "'" + what + "'"
		} else {
			what = g[1] + "()"
		}
		msg = what + " does not apply to (" + g[2] + ")"
		if strings.Contains(g[2], "int") && strings.Contains(g[2], "double") {
			// A schema's number is a double and its integer an int
			// (numbers.go): the most common surprise.
			return msg, "CEL does not mix int and double in arithmetic (a schema's number is a double, its integer an int): write 2.0 instead of 2, or convert with double(x) or int(x)"
		}
		return msg, "CEL converts no type implicitly: convert a side with string(x), int(x) or double(x), or compare values of one type"
	}
	return m, ""
}

// expected is ANTLR's set of expected tokens in words: a value when it
// holds the tokens that start one, else the tokens themselves.
func expected(set string) string {
	set = strings.TrimSuffix(strings.TrimPrefix(set, "{"), "}")
	if strings.Contains(set, "IDENTIFIER") && strings.Contains(set, "NUM_INT") {
		return "a value"
	}
	names := map[string]string{"IDENTIFIER": "a name", "STRING": "a string", "NUM_INT": "a number",
		"NUM_UINT": "a number", "NUM_FLOAT": "a number", "BYTES": "bytes", "<EOF>": "the end"}
	var out []string
	seen := map[string]bool{}
	for _, t := range strings.Split(set, ", ") {
		if n, ok := names[t]; ok {
			t = n
		}
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return strings.Join(out, ", ")
}
