package compile

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/yuin/goldmark/ast"

	"github.com/pilotage-dev/pilotage/internal/base/guidemd"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/syntax"
	"github.com/pilotage-dev/pilotage/workbench/pdl"
)

// example is one fenced block of a guide that holds a program.
type example struct {
	src  []byte
	line int // 1-based line of the block's first content line in the body
}

// examples returns the program examples of a Markdown body: the fenced
// code blocks the Language's Syntax takes for programs (syntax.Example).
// Other blocks (inputs, outputs) are not programs and are skipped.
//
// The body is read by guidemd, within its bounds (a plain goldmark parse
// took 22 s on a 200 KB body of "[a]("); a body past them is its error.
func examples(body string, syn syntax.Syntax) ([]example, error) {
	src := []byte(body)
	doc, err := guidemd.Parse(src)
	if err != nil {
		return nil, err
	}
	return programs(doc, src, syn), nil
}

// programs returns the program examples among the fenced code blocks of
// doc, the tree of src.
func programs(doc ast.Node, src []byte, syn syntax.Syntax) []example {
	var out []example
	// The walk meets blocks in the order of the body, so each block's line
	// is counted on from the one before: counting from the start for each
	// took a second for 24,000 examples.
	line, counted := 1, 0
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		fb, ok := n.(*ast.FencedCodeBlock)
		if !entering || !ok {
			return ast.WalkContinue, nil
		}
		var b bytes.Buffer
		lines := fb.Lines()
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			b.Write(seg.Value(src))
		}
		if !syn.Example(string(fb.Language(src)), b.Bytes()) {
			return ast.WalkContinue, nil
		}
		if lines.Len() > 0 {
			start := lines.At(0).Start
			line += bytes.Count(src[counted:start], []byte{'\n'})
			counted = start
		}
		out = append(out, example{src: b.Bytes(), line: line})
		return ast.WalkContinue, nil
	})
	return out
}

// checkExamples validates every program example of the Language's
// authored guides, so a guide never teaches a program the Language
// rejects. Findings point at the example's line: in the guide's file, or
// in the PDL for an inline body.
func (c *compiler) checkExamples(ls *langState) {
	if ls.broken {
		return
	}
	for j, g := range ls.lang.Guides {
		// A guide without content (pdl-required) shows no example: a file
		// repeating one such guide 300,000 times spent 0.45 s and 280 MB
		// giving each empty body to the Markdown parser.
		if g.Generated || j >= len(ls.guides) || g.Body == "" {
			continue
		}
		exs, err := examples(g.Body, syntax.For(ls.lang))
		var tc *guidemd.TooComplexError
		if errors.As(err, &tc) {
			pos := c.bodyPos(ls.guides[j], tc.Line, 1)
			c.add(pdl.Errorf(pdl.RuleExample, pos, lexer.Position{}, fmt.Sprintf("keep a guide under %d bytes and %d lines, table cells and nested quotes and lists, nesting them at most %d deep", guidemd.MaxBodyBytes, guidemd.MaxBlocks, guidemd.MaxNesting),
				fmt.Sprintf("guide %s is not read as Markdown (%s), so its example programs are not checked", report.Clip(g.ID), tc.Message)))
		}
		for _, ex := range exs {
			ck := c.checkBody(ex.src, nil, ls)
			for _, p := range ck.problems {
				pos, end := ck.problemPos(p, func(line, col int) lexer.Position {
					return c.bodyPos(ls.guides[j], ex.line+line-1, col)
				})
				c.add(pdl.Errorf(pdl.RuleExample, pos, end, "fix the example, or the entries it calls",
					fmt.Sprintf("guide %s: example program %s", report.Clip(g.ID), p)))
			}
		}
	}
}

// bodyPos maps a 1-based line and column of a guide body to a source
// position: in the guide's file, or inside the PDL text block.
func (c *compiler) bodyPos(g guideAt, line, col int) lexer.Position {
	switch {
	case g.hasFile:
		return lexer.Position{Filename: c.path(g.file), Line: line, Column: col}
	case g.hasBody:
		return valuePos(c.name, &g.body, line, col)
	}
	return g.at.In(c.name)
}

// valuePos maps a 1-based line and column (in characters, as every
// position of the project counts them) of a literal's content to its
// source position. A text block's content is its token dedented
// (pdl.Dedent), so each content line is found in the token as written:
// on the line of the opening quotes when the text starts there, after
// however much indentation the block's lines share. A word's or a raw
// string's content is its token (without the back-quotes), and a
// string's its token unquoted, so an escape before the place counts as
// the characters it is written with. A number maps to its start, as does
// a place past the content.
func valuePos(file string, v *pdl.Value, line, col int) lexer.Position {
	switch v.Kind() {
	case pdl.KindNumber:
		return v.Pos.In(file)
	case pdl.KindIdent, pdl.KindRaw, pdl.KindString:
		at, ok := tokenOffset(v, contentOffset(v.Str(), line, col))
		if !ok {
			return v.Pos.In(file)
		}
		p := v.Pos
		p.Advance(v.Token[:at])
		return p.In(file)
	}
	raw := strings.Split(strings.ReplaceAll(v.Token[3:len(v.Token)-3], "\r\n", "\n"), "\n")
	content := strings.Split(v.Str(), "\n")
	i := line - 1
	if len(raw) > 1 && strings.TrimSpace(raw[0]) == "" {
		i++ // Dedent drops an empty first line
	}
	if line < 1 || line > len(content) || i >= len(raw) {
		return v.Pos.In(file)
	}
	// The dedented line is the raw line without the shared indentation,
	// and only white space precedes it there. A blank line is placed at
	// its end: where the text ends, that is at the closing quotes (JSON
	// cut short is reported there).
	indent := utf8.RuneCountInString(raw[i][:max(0, strings.Index(raw[i], content[line-1]))])
	if content[line-1] == "" {
		indent = utf8.RuneCountInString(raw[i])
	}
	pos := lexer.Position{Filename: file, Line: int(v.Pos.Line) + i, Column: indent + col}
	if i == 0 {
		pos.Column += int(v.Pos.Column) + 2 // after the opening """
	}
	return pos
}

// contentOffset is the byte offset in content of a 1-based line and
// column in characters, -1 past its lines or past the end of its line.
func contentOffset(content string, line, col int) int {
	off := 0
	for ; line > 1; line-- {
		i := strings.IndexByte(content[off:], '\n')
		if i < 0 {
			return -1
		}
		off += i + 1
	}
	rest := content[off:]
	if i := strings.IndexByte(rest, '\n'); i >= 0 {
		rest = rest[:i]
	}
	for ; col > 1; col-- {
		if rest == "" {
			return -1
		}
		_, size := utf8.DecodeRuneInString(rest)
		off, rest = off+size, rest[size:]
	}
	return off
}

// tokenOffset is the byte offset in v's token (a word, raw string or
// string) of byte off of its content, and whether off is inside it (its
// end included).
func tokenOffset(v *pdl.Value, off int) (int, bool) {
	switch k := v.Kind(); {
	case len(v.Token) < 2 && k != pdl.KindIdent:
		return 0, false // a tree built by hand: no closing quote
	case k == pdl.KindIdent:
		return off, off >= 0 && off <= len(v.Token)
	case k == pdl.KindRaw:
		return off + 1, off >= 0 && off <= len(v.Token)-2
	}
	// A string: unquote it a character at a time up to off.
	s, n := v.Token[1:len(v.Token)-1], 0
	for n < off && s != "" {
		r, multibyte, tail, err := strconv.UnquoteChar(s, '"')
		if err != nil {
			return 0, false
		}
		size := 1 // a byte, or an escape of one (\x, octal)
		if multibyte {
			size = utf8.RuneLen(r)
		}
		n, s = n+size, tail
	}
	return len(v.Token) - 1 - len(s), off >= 0 && n == off
}

// problemPos maps a problem of the checked body (1-based first line at
// line) to a start and end position via at, where `pilotage validate`
// places the engine's diagnostic: the value or token at its path,
// narrowed to its range inside an expression; text that does not parse
// where reading stopped. The end is unknown (zero) when the extent spans
// lines, and a limit error is placed at the body's start.
func (ck checked) problemPos(p problem, at func(line, col int) lexer.Position) (pos, end lexer.Position) {
	if ck.parsed == nil {
		return at(1, 1), lexer.Position{}
	}
	s, e := ck.parsed.Span(p.diag)
	pos = at(s.Line, s.Column)
	if e.Line > 0 {
		end = at(e.Line, e.Column)
	}
	return pos, end
}
