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

// tItem is one statement with its optional label.
type tItem struct {
	Tokens []lexer.Token
	Label  *tName    `parser:"( @@ Assign )?"`
	Output *tExprArg `parser:"(   Output @@"`
	If     *tIf      `parser:"  | @@"`
	For    *tFor     `parser:"  | @@"`
	Run    *tCall    `parser:"  | Run @@"`
	Call   *tCall    `parser:"  | @@ )"`
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

type tArgs struct {
	Tokens []lexer.Token
	List   []*tArg `parser:"\"(\" Sep* ( @@ Sep* ( \",\" Sep* @@ Sep* )* ( \",\" Sep* )? )? \")\""`
}

type tArg struct {
	Name  *tName    `parser:"@@ Bind"`
	Value *tExprArg `parser:"@@"`
}

// An expression's atoms: a bracketed group (line ends allowed inside),
// or one token that does not end the expression. tExprOpen ends before
// a '{' (the block of a branch or loop); tExprArg, an argument's or the
// output's, at a ',', a ')', a '}' or a line end.
type tExprOpen struct {
	Tokens []lexer.Token
	Atoms  []*tAtomOpen `parser:"@@+"`
}

type tAtomOpen struct {
	Group *tGroup `parser:"  (?! \"{\" ) @@"`
	Tok   string  `parser:"| @~( \"{\" | \"}\" | \"(\" | \")\" | \"[\" | \"]\" | Sep )"`
}

type tExprArg struct {
	Tokens []lexer.Token
	Atoms  []*tAtomArg `parser:"@@+"`
}

type tAtomArg struct {
	Group *tGroup `parser:"  @@"`
	Tok   string  `parser:"| @~( \",\" | \"{\" | \"}\" | \"(\" | \")\" | \"[\" | \"]\" | Sep )"`
}

type tGroup struct {
	Paren []*tInner `parser:"  \"(\" @@* \")\""`
	Brack []*tInner `parser:"| \"[\" @@* \"]\""`
	Brace []*tInner `parser:"| \"{\" @@* \"}\""`
}

type tInner struct {
	Group *tGroup `parser:"  @@"`
	Tok   string  `parser:"| @~( \"(\" | \")\" | \"[\" | \"]\" | \"{\" | \"}\" )"`
}

// textParser is built once: the Language's words reach it as token types.
var textParser = participle.MustBuild[tProgram](participle.Lexer(lexDef{}), participle.UseLookahead(3))
