package syntax

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/base/suggest"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/internal/model/program"
)

// textSyntax is the text surface a `syntax text` block declares: the
// statements of docs/pdl.md, with the Language's words, read into the
// same step model as its JSON form (language.Grammar names that form's
// members, which the step model's JSON Pointers use).
type textSyntax struct {
	g  *language.Grammar
	ts *language.TextSyntax
	// steps is the most statements a program may hold: the most steps a
	// Run of the Language executes (limits steps).
	steps int
}

func newText(l *language.Language) *textSyntax {
	return &textSyntax{g: &l.Grammar, ts: l.Text, steps: l.Limits.WithDefaults().Steps}
}

func (t *textSyntax) Locator() string { return pilotage.LocatorTextRange }

// Pointers is false: the JSON form is the engine's, not the author's.
func (t *textSyntax) Pointers() bool { return false }

// Example: a fenced block whose info string is the syntax's fence.
func (t *textSyntax) Example(info string, _ []byte) bool { return info == t.ts.Fence }

// maxBracketNesting bounds how deep brackets of any kind may nest, on top
// of twice the Language's depth limit (maxNesting).
const maxBracketNesting = 64

func (t *textSyntax) Parse(src []byte, maxDepth int) (*Parsed, error) {
	doc := &jsonpos.Doc{Src: src}
	text := string(src)
	b := newBuilder(t, text, doc)
	p := &Parsed{locate: b.locate, span: b.spanOf, place: b.place}
	d, err := t.read(text, doc, maxDepth, b.top)
	if err != nil {
		return nil, err
	}
	if d != nil {
		b.prog, b.output = &program.Program{}, false
		p.Program, p.Diagnostics = b.prog, []pilotage.Diagnostic{*d}
		return p, nil
	}
	b.finish()
	p.Program, p.Diagnostics = b.prog, b.diags
	return p, nil
}

// read lexes and parses text, handing each top-level statement to top as
// it is read; a diagnostic (located) when it is not a program of the
// surface, a *program.LimitError when its brackets nest too deep to
// parse, its statements deeper than maxDepth, or top returns one (the
// reader stops at the first). A character no token starts with, or brackets nested too deep,
// anywhere in the text is reported before any parse error, as when the
// whole text was lexed first.
func (t *textSyntax) read(text string, doc *jsonpos.Doc, maxDepth int, top func(*tItem) *program.LimitError) (*pilotage.Diagnostic, error) {
	if !utf8.ValidString(text) {
		at := invalidUTF8(doc.Src)
		return syntaxAt(doc, at, at+1, "the program is not UTF-8 text: the byte at this position is not a character", "save the program as UTF-8"), nil
	}
	if i := strings.IndexByte(text, 0); i >= 0 {
		return syntaxAt(doc, i, i+1, "the program contains a NUL character, which no statement or expression may hold", "remove it"), nil
	}
	lex := newStream(newScanner(text, t.ts, maxNesting(maxDepth)), 8*kept)
	r := newReader(lex, maxDepth)
	err := r.program(top)
	if err != nil {
		lex.drain()
	}
	var le *lexError
	switch {
	case errors.As(lex.err, &le) && le.limit:
		at := doc.Position(le.at)
		return nil, &program.LimitError{Msg: le.msg, At: pilotage.LineCol{Line: at.Line, Column: at.Column}}
	case le != nil:
		return syntaxAt(doc, le.at, le.end, le.msg, ""), nil
	case r.limit != nil:
		return nil, r.limit
	case err != nil:
		return t.parseError(doc, text, maxDepth, err), nil
	}
	return nil, nil
}

func invalidUTF8(src []byte) int {
	for i := 0; i < len(src); {
		r, w := utf8.DecodeRune(src[i:])
		if r == utf8.RuneError && w == 1 {
			return i
		}
		i += w
	}
	return len(src)
}

// syntaxAt is a syntax diagnostic on the bytes [start, end) of the text.
func syntaxAt(doc *jsonpos.Doc, start, end int, msg, hint string) *pilotage.Diagnostic {
	return &pilotage.Diagnostic{Code: pilotage.CodeSyntax, Severity: pilotage.SeverityError, Message: msg, Hint: hint, Path: textPath(doc, start, end)}
}

// maxNesting is how deep brackets may nest in a program of a Language
// of depth limit maxDepth: what any program within it needs (a block or
// argument list per construct, and the expressions' own), with room to
// spare; deeper is a *program.LimitError, as the JSON form gives.
func maxNesting(maxDepth int) int { return 2*maxDepth + maxBracketNesting }

// parseError turns participle's error into a diagnostic at the failing
// token, saying in words what the surface expected there, with a hint:
// the Language's own word when the token, or the one before it, is a
// default keyword this Language renames (`for` in a Language that loops
// with `each`), else a did-you-mean when one misspells a keyword. A
// keyword written as a label is said so, at the keyword.
func (t *textSyntax) parseError(doc *jsonpos.Doc, text string, maxDepth int, err error) *pilotage.Diagnostic {
	var pe participle.Error
	if !errors.As(err, &pe) {
		return syntaxAt(doc, 0, 0, err.Error(), "")
	}
	pos := pe.Position()
	start, end := pos.Offset, pos.Offset
	got, prev, kwLabel, open := t.around(text, maxDepth, pos.Offset)
	if kwLabel != nil {
		return syntaxAt(doc, kwLabel.Pos.Offset, kwLabel.Pos.Offset+len(kwLabel.Value),
			fmt.Sprintf("%q is a keyword of this Language, so it cannot label a statement", kwLabel.Value), "choose another label")
	}
	msg := "unexpected " + t.describe(got)
	var ute *participle.UnexpectedTokenError
	if errors.As(err, &ute) {
		if want := t.expectation(ute.Expect); want != "" {
			msg += "; expected " + want + closing(ute.Expect, open, got)
		}
	}
	if got != nil {
		end = start + len(got.Value)
	}
	hint, renamed := t.renamedHint(got, prev)
	if renamed != nil && renamed != got {
		// The default keyword was read as a call's catalog id: it is
		// the mistake, not the token after it.
		return syntaxAt(doc, renamed.Pos.Offset, renamed.Pos.Offset+len(renamed.Value),
			fmt.Sprintf("%q is not a keyword of this Language", renamed.Value), hint)
	}
	if hint == "" {
		hint = t.keywordHint(got, prev)
	}
	if ute != nil && ute.Expect == bindWanted && prev != nil && got != nil {
		hint = fmt.Sprintf("did you mean %s%s %s?", prev.Value, t.ts.Bind, report.Clip(got.Value))
	}
	if got != nil && got.Type == kElse {
		hint = fmt.Sprintf("write %q on the line of the '}' that closes the first block", t.ts.Else)
	}
	if got != nil && prev == nil && (got.Value == "{" || got.Value == "[") {
		// The JSON form, which most Languages take: no statement starts
		// with a bracket, so the program is JSON, not a text one gone
		// wrong (program.NotJSON says the converse).
		hint = fmt.Sprintf("this Language reads programs as text, not as JSON: statements such as label %s entry.id(arg%s value), one a line, as its guides' examples write them", t.ts.Assign, t.ts.Bind)
	}
	return syntaxAt(doc, start, end, msg, hint)
}

// around is the token at offset off, and the last before it that is not
// a comment or separator, lexed again from the start (the reader keeps
// no tokens behind it); kwLabel is a keyword written as a label (a
// keyword followed by the label's punctuation) on the line of either,
// which is then the mistake; open is the innermost bracket still open
// before off, nil when none is.
func (t *textSyntax) around(text string, maxDepth, off int) (got, prev, kwLabel, open *lexer.Token) {
	sc := newScanner(text, t.ts, maxNesting(maxDepth))
	var last, kw *lexer.Token // the last token, and a keyword before a label's punctuation
	var opens []lexer.Token   // at most maxNesting: the scanner stops past it
	inner := func() *lexer.Token {
		if len(opens) == 0 {
			return nil
		}
		return &opens[len(opens)-1]
	}
	for {
		tok, err := sc.Next()
		if err == nil && tok.Type == kAssign && last != nil && isKeyword(last.Type) {
			kw = last
		}
		switch {
		case err != nil:
			return nil, prev, onLine(kw, prev), inner()
		case tok.Pos.Offset == off && tok.Type != kComment:
			if isKeyword(tok.Type) && nextIs(sc, kAssign) {
				kw = &tok // the keyword starts the statement it labels
			}
			return &tok, prev, onLine(kw, &tok, prev), inner()
		case tok.Pos.Offset > off || tok.EOF():
			return nil, prev, onLine(kw, prev), inner()
		case tok.Type != kComment && tok.Type != kSep:
			prev = &tok
		}
		if tok.Type != kComment {
			last = &tok
		}
		if tok.Type == kOp {
			switch tok.Value {
			case "(", "[", "{":
				opens = append(opens, tok)
			case ")", "]", "}":
				if len(opens) > 0 {
					opens = opens[:len(opens)-1]
				}
			}
		}
	}
}

// closing names the bracket open, still open where the reader wanted
// want, a closing bracket, when it is on an earlier line than got: the
// one it would close, or, at the end of the program, an inner one never
// closed.
func closing(want string, open, got *lexer.Token) string {
	closer := map[string]string{`"}"`: "{", `")"`: "(", `"," or ")"`: "("}[want]
	switch {
	case closer == "" || open == nil || got != nil && !got.EOF() && got.Pos.Line == open.Pos.Line:
		return ""
	case open.Value == closer:
		return fmt.Sprintf(" to close the %q at line %d, column %d", open.Value, open.Pos.Line, open.Pos.Column)
	case got == nil || got.EOF():
		return fmt.Sprintf("; the %q at line %d, column %d is never closed", open.Value, open.Pos.Line, open.Pos.Column)
	}
	return ""
}

// nextIs reports whether the scanner's next token, comments skipped,
// has type typ.
func nextIs(sc *scanner, typ lexer.TokenType) bool {
	for {
		tok, err := sc.Next()
		if err != nil || tok.Type != kComment {
			return err == nil && tok.Type == typ
		}
	}
}

func isKeyword(typ lexer.TokenType) bool {
	switch typ {
	case kIf, kElse, kFor, kIn, kRun, kOutput:
		return true
	}
	return false
}

// onLine is kw when it is on the line of one of toks.
func onLine(kw *lexer.Token, toks ...*lexer.Token) *lexer.Token {
	for _, tok := range toks {
		if kw != nil && tok != nil && tok.Pos.Line == kw.Pos.Line {
			return kw
		}
	}
	return nil
}

// describe names a token for a message.
func (t *textSyntax) describe(tok *lexer.Token) string {
	switch {
	case tok == nil || tok.EOF():
		return "end of the program"
	case tok.Type == kSep && tok.Value == "\n":
		return "end of line"
	case tok.Type == kString:
		// Quoting it again would show its quotes escaped.
		return "string " + report.Clip(tok.Value)
	}
	return report.Quote(tok.Value)
}

// expectation says in the author's words what the reader wanted where
// it failed, want being the grammar's name for it (textgrammar.go).
func (t *textSyntax) expectation(want string) string {
	ts := t.ts
	q := strconv.Quote
	switch want {
	case "":
		return ""
	case wantStatement:
		return "a statement"
	case wantLabel:
		return q(ts.Assign)
	case "tExprOpen " + wantThen:
		return `a condition, then "{"`
	case wantThen:
		return `"{" after the condition`
	case wantElse:
		return fmt.Sprintf(`%q or "{" after %q`, ts.If, ts.Else)
	case "TName <in> " + wantList:
		return "the loop variable's name"
	case "<in> " + wantList:
		return fmt.Sprintf("%q after the loop variable", ts.In)
	case wantList:
		return `the list to loop over, then "{"`
	case "TBlock":
		return `"{" after the list`
	case "TCall":
		return "the program to run and its arguments"
	case "tExprArg":
		return "an expression"
	case "tArgs":
		return `"(" and the arguments`
	case bindWanted:
		return q(ts.Bind) + " after the argument's name"
	}
	return want // `"}"`, `")"`, `"," or ")"`: as written
}

// keywordHint suggests the keyword a name next to the failure misspells.
func (t *textSyntax) keywordHint(toks ...*lexer.Token) string {
	kws := []string{t.ts.If, t.ts.Else, t.ts.For, t.ts.In, t.ts.Run, t.ts.Output}
	for _, tok := range toks {
		if tok == nil || tok.Type != kName {
			continue
		}
		if best := suggest.Closest(tok.Value, kws); best != "" && best != tok.Value {
			return fmt.Sprintf("did you mean %q?", best)
		}
	}
	return ""
}

// renamedHint names this Language's own keyword when a name next to the
// failure, tok, is a default keyword (docs/pdl.md) that it spells
// otherwise: a model that learnt the defaults writes `for x in …` in a
// Language of `each x of …`.
func (t *textSyntax) renamedHint(toks ...*lexer.Token) (hint string, tok *lexer.Token) {
	ts, def := t.ts, &language.DefaultTextSyntax
	loop := fmt.Sprintf("%s ITEM %s LIST { … }", ts.For, ts.In)
	branch := fmt.Sprintf("%s COND { … } %s { … }", ts.If, ts.Else)
	for _, tok := range toks {
		if tok == nil || tok.Type != kName {
			continue
		}
		for _, k := range []struct{ def, own, example string }{
			{def.If, ts.If, branch}, {def.Else, ts.Else, branch}, {def.For, ts.For, loop}, {def.In, ts.In, loop},
			{def.Run, ts.Run, ts.Run + " PROGRAM@VERSION(ARGS)"}, {def.Output, ts.Output, ts.Output + " EXPR"},
		} {
			if tok.Value == k.def && k.own != k.def {
				return fmt.Sprintf("this Language writes %q as %q: %s", k.def, k.own, k.example), tok
			}
		}
	}
	return "", nil
}

// Paths is the closed-sets guide's paragraph on how a diagnostic's path
// locates a finding in the text.
func (t *textSyntax) Paths() string {
	return "Programs are text in this Language's own notation (locator `text-range`, §5.5): send the program as one JSON string holding the program text, written as the examples write it. " +
		"A diagnostic's `path` is `{\"start\": {\"line\": L, \"column\": C}, \"end\": {\"line\": L, \"column\": C}}` in that text: lines and columns are 1-based, columns count characters (Unicode code points), and `end` is the position just after the last character of the finding. " +
		"A syntax error spans the token where reading stopped and says what was expected there; a finding about a name, an argument or an expression spans exactly that token or the part of the expression at fault; a finding about the whole program spans all of it. `range` is never used. " +
		"An `input_binding` or `context_binding` diagnostic's `path` is a JSON Pointer into the input or the context."
}

// StepIdentifiers is the closed-sets guide's Step identifiers section:
// the labels, and the scheme that generates the ids of unlabeled
// statements (§3.4: a grammar without native ids for every step).
func (t *textSyntax) StepIdentifiers() string {
	ts := t.ts
	return fmt.Sprintf("A statement's label is its step id: `hall %[1]s sensors.read(room%[2]s \"hall\")` has the id `hall`, and `hall.output` reads its result. "+
		"A statement without a label gets a generated id, deterministic for the program text (§3.4): its base, which is the catalog id it calls, the program reference it runs without its `@` version, or the keyword `%[3]s` or `%[4]s`, with every character other than a letter, a digit or `_` written as `_`; then `_` and its occurrence among the unlabeled statements of that base, counted from 1 in program order (a branch or loop before the statements inside it), skipping any number a label already has. "+
		"So in `sensors.read(room%[2]s \"hall\")` followed by `%[3]s input.cold { sensors.read(room%[2]s \"cellar\") }` the ids are `sensors_read_1`, `%[3]s_1` and `sensors_read_2`. "+
		"Generated ids contain no `#` or `/`, and are the same in the validation plan and the execution trace of the same text. "+
		"White space, comments and edits of statements of another base never change a generated id; adding, removing, moving or labelling an unlabeled statement of the same base before it renumbers it, and so does a new label equal to it.",
		ts.Assign, ts.Bind, ts.If, ts.For)
}
