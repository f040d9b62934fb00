package pdl

import (
	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// lexRules are tried in order; the first that matches wins. The last four
// rules match what no valid token can, so lexing never fails: Parse turns
// those tokens into findings with a hint and carries on.
var lexRules = []lexer.SimpleRule{
	{Name: "Comment", Pattern: `#[^\n]*`},
	{Name: "Text", Pattern: `"""(?s:.*?)"""`},
	{Name: "String", Pattern: `"(?:\\[abfnrtv\\"'0-7xuU]|[^"\\\n])*"`},
	{Name: "Raw", Pattern: "`[^`]*`"},
	{Name: "Number", Pattern: `[0-9][0-9_]*(?:\.[0-9]+)?[A-Za-z]*`},
	{Name: "Ident", Pattern: `[A-Za-z_][A-Za-z0-9_\-]*`},
	{Name: "Punct", Pattern: `[{}=]`},
	{Name: "Semi", Pattern: `;`},
	{Name: "EOL", Pattern: `\n`},
	{Name: "Whitespace", Pattern: `[ \t\r\f\v]+`},
	{Name: "OpenText", Pattern: `"""(?s:.*)`},
	{Name: "OpenString", Pattern: `"(?:\\.|[^"\\\n])*`},
	{Name: "OpenRaw", Pattern: "`(?s:.*)"},
	{Name: "Invalid", Pattern: `(?s:.)`},
}

// lex is the lexer, built once: building compiles every pattern.
var lex = lexer.MustSimple(lexRules)

// parser is built once at package level; participle reflects over the
// grammar structs at build time, which is too slow to repeat per file.
var parser = participle.MustBuild[File](
	participle.Lexer(lex),
	participle.Elide("Whitespace"),
	participle.UseLookahead(2),
)

// Token types, looked up once.
var (
	tokEOL        = lex.Symbols()["EOL"]
	tokPunct      = lex.Symbols()["Punct"]
	tokWhitespace = lex.Symbols()["Whitespace"]
	tokOpenText   = lex.Symbols()["OpenText"]
	tokOpenString = lex.Symbols()["OpenString"]
	tokOpenRaw    = lex.Symbols()["OpenRaw"]
	tokInvalid    = lex.Symbols()["Invalid"]
	tokString     = lex.Symbols()["String"]
)
