package syntax

import (
	"errors"
	"fmt"
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
// token, saying what the surface expected there, with a did-you-mean
// when the token, or the one before it, is a misspelt keyword.
func (t *textSyntax) parseError(doc *jsonpos.Doc, text string, maxDepth int, err error) *pilotage.Diagnostic {
	var pe participle.Error
	if !errors.As(err, &pe) {
		return syntaxAt(doc, 0, 0, err.Error(), "")
	}
	pos := pe.Position()
	start, end := pos.Offset, pos.Offset
	got, prev := t.around(text, maxDepth, pos.Offset)
	msg := "unexpected " + t.describe(got)
	var ute *participle.UnexpectedTokenError
	if errors.As(err, &ute) {
		msg += expected(t.words(), ute.Message())
	}
	if got != nil {
		end = start + len(got.Value)
	}
	hint := t.keywordHint(got, prev)
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
// no tokens behind it).
func (t *textSyntax) around(text string, maxDepth, off int) (got, prev *lexer.Token) {
	sc := newScanner(text, t.ts, maxNesting(maxDepth))
	for {
		tok, err := sc.Next()
		switch {
		case err != nil:
			return nil, prev
		case tok.Pos.Offset == off && tok.Type != kComment:
			return &tok, prev
		case tok.Pos.Offset > off || tok.EOF():
			return nil, prev
		case tok.Type != kComment && tok.Type != kSep:
			prev = &tok
		}
	}
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

// words maps the grammar's token type names, as participle's messages
// show them, to what the author writes.
func (t *textSyntax) words() *strings.Replacer {
	q := func(s string) string { return fmt.Sprintf("%q", s) }
	return strings.NewReplacer("<name>", "a name", "<sep>", "end of line", "<if>", q(t.ts.If), "<else>", q(t.ts.Else),
		"<for>", q(t.ts.For), "<in>", q(t.ts.In), "<run>", q(t.ts.Run), "<output>", q(t.ts.Output),
		"<assign>", q(t.ts.Assign), "<bind>", q(t.ts.Bind), "<string>", "a string", "<number>", "a number", "<op>", "an operator",
		"TArgs", `"(" and the arguments`, "TExprArg", "an expression", "TExprOpen", "an expression", "tExprArg", "an expression", "tExprOpen", "an expression", "tArgs", `"(" and the arguments`,
		"TBlock", `"{"`, "TName", "a name", "TItem", "a statement", "TIf", q(t.ts.If), "TCall", "a catalog id")
}

// expected is the "(expected …)" part of participle's message, in the
// author's words.
func expected(words *strings.Replacer, msg string) string {
	i := strings.Index(msg, " (expected ")
	if i < 0 {
		return ""
	}
	return "; expected " + words.Replace(strings.TrimSuffix(msg[i+len(" (expected "):], ")"))
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
