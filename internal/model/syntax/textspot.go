package syntax

import (
	"strings"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/pilotage-dev/pilotage/internal/model/language"
)

// TextSpot is what a text program expects at a position, as an editor's
// completion asks it: an argument name of a call to Callee (Given are
// the names the call binds already), or a field of the output of the
// step labelled with a call to OutputOf (after `LABEL.output.`).
type TextSpot struct {
	Callee   string
	Given    []string
	OutputOf string
}

// spotNesting bounds the brackets read for a spot; past it there is none.
const spotNesting = 256

// TextSpotAt reads the tokens before off (the lexer the parser uses, so
// strings and comments are never mistaken for calls). A program that
// does not lex up to off has no spot.
func TextSpotAt(ts *language.TextSyntax, src []byte, off int) TextSpot {
	toks, err := lex(src[:off], ts, spotNesting)
	if err != nil || len(toks) < 2 {
		return TextSpot{}
	}
	toks = toks[:len(toks)-1] // EOF
	if label, ok := outputLabel(toks, off); ok {
		return TextSpot{OutputOf: labelledCall(ts, src, label)}
	}
	spot := argSpot(toks, off)
	if spot.Callee != "" {
		spot.Given = append(spot.Given, givenAfter(ts, src, off)...)
	}
	return spot
}

// givenAfter are the argument names bound after off in the call open
// there, up to its ')'.
func givenAfter(ts *language.TextSyntax, src []byte, off int) []string {
	toks, _ := lex(src, ts, spotNesting)
	var rest []lexer.Token
	for _, t := range significant(toks) {
		if t.Pos.Offset >= off {
			rest = append(rest, t)
		}
	}
	var out []string
	depth := 0
	for i, t := range rest {
		switch {
		case t.Value == "(" || t.Value == "[" || t.Value == "{":
			depth++
		case t.Value == ")" || t.Value == "]" || t.Value == "}":
			if depth--; depth < 0 {
				return out
			}
		case t.Type == kBind && depth == 0 && i > 0 && rest[i-1].Type == kName && (i == 1 || rest[i-2].Value == ","):
			out = append(out, rest[i-1].Value)
		}
	}
	return out
}

// outputLabel is LABEL when the tokens end, at off, in `LABEL.output.`
// or `LABEL.output.partial` (the lexer joins a dotted name; a trailing
// dot is its own token).
func outputLabel(toks []lexer.Token, off int) (string, bool) {
	last := toks[len(toks)-1]
	if last.Pos.Offset+len(last.Value) != off {
		return "", false
	}
	path := last.Value
	if last.Type == kOp && last.Value == "." && len(toks) > 1 {
		prev := toks[len(toks)-2]
		if prev.Type != kName || prev.Pos.Offset+len(prev.Value) != last.Pos.Offset {
			return "", false
		}
		path = prev.Value + "."
	} else if last.Type != kName {
		return "", false
	}
	label, rest, ok := strings.Cut(path, ".output.")
	return label, ok && label != "" && !strings.ContainsAny(label+rest, ".-@")
}

// labelledCall is the catalog id the statement `LABEL ASSIGN [RUN] ID(`
// calls, "" when no statement has that label.
func labelledCall(ts *language.TextSyntax, src []byte, label string) string {
	toks, _ := lex(src, ts, spotNesting) // the tokens up to any error
	toks = significant(toks)
	for i := 0; i+3 < len(toks); i++ {
		if toks[i].Type != kName || toks[i].Value != label || toks[i+1].Type != kAssign {
			continue
		}
		j := i + 2
		if toks[j].Type == kRun {
			j++
		}
		if j+1 < len(toks) && toks[j].Type == kName && toks[j+1].Value == "(" {
			return toks[j].Value
		}
	}
	return ""
}

// argSpot finds the innermost open bracket; when it is a call's '(' and
// off is where an argument name goes (right after '(' or ',', or in the
// name being typed there), the spot is that call's argument.
func argSpot(toks []lexer.Token, off int) TextSpot {
	type open struct {
		callee string
		given  []string
	}
	var stack []open
	toks = significant(toks)
	for i, t := range toks {
		switch {
		case t.Value == "(" || t.Value == "[" || t.Value == "{":
			callee := ""
			if t.Value == "(" && i > 0 && toks[i-1].Type == kName {
				callee = toks[i-1].Value
			}
			stack = append(stack, open{callee: callee})
		case t.Value == ")" || t.Value == "]" || t.Value == "}":
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case t.Type == kBind && len(stack) > 0 && i > 1 && toks[i-1].Type == kName && (toks[i-2].Value == "(" || toks[i-2].Value == ","):
			top := &stack[len(stack)-1]
			top.given = append(top.given, toks[i-1].Value)
		}
	}
	if len(stack) == 0 || stack[len(stack)-1].callee == "" {
		return TextSpot{}
	}
	last := toks[len(toks)-1]
	if last.Type == kName && last.Pos.Offset+len(last.Value) == off && len(toks) > 1 {
		last = toks[len(toks)-2] // the name being typed
	}
	if last.Value != "(" && last.Value != "," {
		return TextSpot{}
	}
	top := stack[len(stack)-1]
	return TextSpot{Callee: top.callee, Given: top.given}
}

// significant drops line ends and comments, which may come anywhere
// inside a call.
func significant(toks []lexer.Token) []lexer.Token {
	out := toks[:0:0]
	for _, t := range toks {
		if t.Type != kSep && t.Type != kComment && !t.EOF() {
			out = append(out, t)
		}
	}
	return out
}
