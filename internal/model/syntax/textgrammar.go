package syntax

import (
	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// The participle grammar of the text surface. Statements are free-form:
// separators (line ends and ';') may come anywhere between them, and a
// statement ends where its last token does (a call at its ')', a branch
// or loop at its '}', the output at the end of its line). Expressions are
// kept as the tokens they span, the text between them included, and are
// CEL's to read: the grammar only finds where each one ends.

type tProgram struct {
	Items []*tItem `parser:"( @@ | Sep )*"`
}

// tItem is one statement with its optional label; calls, the commonest,
// are tried first.
type tItem struct {
	Tokens []lexer.Token
	Label  *tName    `parser:"( @@ Assign )?"`
	Call   *tCall    `parser:"(   @@"`
	Run    *tCall    `parser:"  | Run @@"`
	If     *tIf      `parser:"  | @@"`
	For    *tFor     `parser:"  | @@"`
	Output *tExprArg `parser:"  | Output @@ )"`
}

type tName struct {
	Tokens []lexer.Token
	Name   string `parser:"@Name"`
}

// tIf and tFor keep their tokens: the first is the keyword, which
// places the statement and names its generated id.
type tIf struct {
	Tokens []lexer.Token
	Cond   *tExprOpen `parser:"If @@"`
	Then   *tBlock    `parser:"@@"`
	ElseIf *tIf       `parser:"( Else ( @@"`
	Else   *tBlock    `parser:"       | @@ ) )?"`
}

type tFor struct {
	Tokens []lexer.Token
	Item   *tName     `parser:"For @@ In"`
	List   *tExprOpen `parser:"@@"`
	Body   *tBlock    `parser:"@@"`
}

type tBlock struct {
	Tokens []lexer.Token
	Items  []*tItem `parser:"\"{\" ( @@ | Sep )* \"}\""`
}

// tCall is a call or a run: the target and its arguments.
type tCall struct {
	Target *tName `parser:"@@"`
	Args   *tArgs `parser:"@@"`
}

// tArgs is "(" then NAME BIND EXPR items separated by ",", a trailing
// "," allowed, line ends anywhere between them, then ")". It reads
// itself (participle.Parseable): arguments are most of a program's
// statements' tokens, and a grammar node per token cost three times the
// JSON form's whole validate (docs/performance.md).
type tArgs struct {
	Tokens []lexer.Token
	List   []*tArg
}

type tArg struct {
	Name  *tName
	Value *tExprArg
}

// argsError is what the arguments expected where they stopped.
func argsError(t *lexer.Token, want string) error {
	return &participle.UnexpectedTokenError{Unexpected: *t, Expect: want}
}

func (a *tArgs) Parse(lex *lexer.PeekingLexer) error {
	start := lex.MakeCheckpoint()
	if t := lex.Peek(); t.Type != kOp || t.Value != "(" {
		return participle.NextMatch
	}
	lex.Next()
	skipSeps := func() {
		for lex.Peek().Type == kSep {
			lex.Next()
		}
	}
	for {
		skipSeps()
		t := lex.Peek()
		if t.Type == kOp && t.Value == ")" {
			break
		}
		if t.Type != kName {
			return argsError(t, `")"`)
		}
		name := &tName{Name: t.Value, Tokens: []lexer.Token{*t}}
		lex.Next()
		if b := lex.Peek(); b.Type != kBind {
			return argsError(b, "<bind> tExprArg")
		}
		lex.Next()
		value := &tExprArg{}
		if err := value.Parse(lex); err != nil {
			return argsError(lex.Peek(), "tExprArg")
		}
		a.List = append(a.List, &tArg{Name: name, Value: value})
		skipSeps()
		switch t := lex.Peek(); {
		case t.Type == kOp && t.Value == ",":
			lex.Next()
		case t.Type == kOp && t.Value == ")":
		default:
			return argsError(t, `"," or ")"`)
		}
	}
	lex.Next()
	a.Tokens = lex.Range(start.RawCursor(), lex.MakeCheckpoint().RawCursor())
	return nil
}

// An expression is the tokens up to where it ends, with brackets
// balanced (line ends allowed inside them): tExprOpen ends before a '{'
// at depth 0 (the block of a branch or loop); tExprArg, an argument's or
// the output's, at a ',', a line end or a closing bracket at depth 0.
// They read themselves (participle.Parseable): CEL, not this grammar,
// gives the tokens their meaning, and one pass with a depth counter is
// what finding the end takes.
type tExprOpen struct{ Tokens []lexer.Token }

type tExprArg struct{ Tokens []lexer.Token }

func (e *tExprOpen) Parse(lex *lexer.PeekingLexer) error {
	return scanExpr(lex, &e.Tokens, func(t *lexer.Token) bool { return t.Value == "{" })
}

func (e *tExprArg) Parse(lex *lexer.PeekingLexer) error {
	return scanExpr(lex, &e.Tokens, func(t *lexer.Token) bool { return t.Value == "," })
}

// scanExpr consumes an expression's tokens: up to, at depth 0, a token
// stop accepts, a line end or a closing bracket, or the end of the text.
// Nothing consumed is no match. toks gets the raw tokens it spans, the
// comments between them included.
func scanExpr(lex *lexer.PeekingLexer, toks *[]lexer.Token, stop func(*lexer.Token) bool) error {
	start := lex.MakeCheckpoint()
	depth, n := 0, 0
scan:
	for t := lex.Peek(); !t.EOF() && !(depth == 0 && (t.Type == kSep || stop(t))); t = lex.Peek() {
		if t.Type == kOp {
			switch t.Value {
			case "(", "[", "{":
				depth++
			case ")", "]", "}":
				if depth == 0 {
					break scan
				}
				depth--
			}
		}
		lex.Next()
		n++
	}
	if n == 0 {
		return participle.NextMatch
	}
	*toks = lex.Range(start.RawCursor(), lex.MakeCheckpoint().RawCursor())
	return nil
}

// textParser is built once: the Language's words reach it as token types.
var textParser = participle.MustBuild[tProgram](participle.Lexer(lexDef{}), participle.UseLookahead(3))
