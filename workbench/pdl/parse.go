package pdl

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/base/textenc"
)

// Bounds that keep hostile input cheap. No real PDL file comes near them.
const (
	// MaxFileBytes is the largest file Parse reads.
	MaxFileBytes = 32 << 20
	// MaxTokens is the most tokens (words, values, punctuation, line
	// ends, comments) a file may hold. The syntax tree costs about 250
	// bytes a token, so a file of one-byte tokens (a million blank lines,
	// "a;a;a;…") cost 150 to 300 times its size: 16 MB took 5 GB.
	// Bounding the count bounds the tree (to about 150 MB) whatever the
	// bytes; the largest generated Language measured (5,000 entries with
	// schemas, 2 MB) has 131,000 tokens.
	MaxTokens = 1 << 19
	// MaxDepth is the deepest block nesting; PDL itself needs three.
	MaxDepth = 16
	// maxSyntaxErrors stops recovery: past this many, later errors are
	// mostly echoes of earlier ones.
	maxSyntaxErrors = 20
)

// Parse reads one PDL file. It returns every syntax error of the file, not
// only the first: bad tokens and unbalanced braces are found by a scan of
// the whole token stream, and after a grammar error the parser blanks the
// rest of the offending line and parses again. The tree it returns (nil
// only for files over MaxFileBytes, nested past MaxDepth, or in UTF-16 or
// UTF-32, which get one finding that says so) is the parse of the
// repaired text, so the compiler can report its own errors too.
func Parse(name string, src []byte) (*File, []report.Finding) {
	if len(src) > MaxFileBytes {
		return nil, []report.Finding{Errorf(RuleSyntax, lexer.Position{Filename: name, Line: 1, Column: 1}, lexer.Position{},
			"split the definition or move guide bodies into files",
			fmt.Sprintf("file is %d bytes; PDL files are limited to %d", len(src), MaxFileBytes))}
	}
	if enc := textenc.Sniff(src); enc.Foreign() {
		return nil, []report.Finding{Errorf(RuleSyntax, lexer.Position{Filename: name, Line: 1, Column: 1}, lexer.Position{},
			enc.Convert(), "the file "+enc.Shows+"; PDL files are UTF-8")}
	}
	findings, work, cuts, ok := scan(name, bytes.Clone(src))
	if !ok {
		return nil, findings
	}
	if len(findings) >= maxSyntaxErrors {
		// The scan stopped early: the rest of the file is unchecked, and
		// the grammar pass would add no finding, only lex all of it into
		// participle's token buffer (about 100 bytes a token: 3.8 GB for
		// a 16 MB file of NUL bytes, each an invalid token).
		return nil, sortFindings(findings)
	}
	if len(findings) == 0 && len(cuts) > 0 {
		if f := parseChunks(name, work, cuts); f != nil {
			return f, nil
		}
	}
	for {
		f, err := parser.ParseBytes(name, work)
		if err == nil {
			return f, sortFindings(findings)
		}
		var perr participle.Error
		if !errors.As(err, &perr) || len(findings) >= maxSyntaxErrors {
			return f, sortFindings(findings)
		}
		pos := perr.Position()
		findings = append(findings, grammarFinding(perr, work))
		if !blankLine(work, pos.Offset) {
			return f, sortFindings(findings)
		}
	}
}

// sortFindings orders findings by position; scan and grammar errors are
// found in two passes.
func sortFindings(fs []report.Finding) []report.Finding {
	sort.SliceStable(fs, func(i, j int) bool {
		if fs[i].Line != fs[j].Line {
			return fs[i].Line < fs[j].Line
		}
		return fs[i].Column < fs[j].Column
	})
	return fs
}

// scan lexes the whole file once, reports invalid tokens and unbalanced
// braces, and repairs work in place (blanking bad tokens, closing open
// blocks) so the grammar pass sees only its own kind of error. ok is false
// when the nesting is too deep to parse safely, or the file holds more
// than MaxTokens tokens.
//
// cuts are positions where a top-level statement starts, about
// chunkBytes apart, where a large file can be split for parsing.
func scan(name string, work []byte) (findings []report.Finding, repaired []byte, cuts []lexer.Position, ok bool) {
	l, _ := lex.LexString(name, string(work))
	var open []lexer.Position
	last := 0
	for n := 0; len(findings) < maxSyntaxErrors; n++ {
		t, err := l.Next()
		if err != nil || t.EOF() {
			break
		}
		if n == MaxTokens {
			return append(findings, Errorf(RuleSyntax, t.Pos, lexer.Position{},
				"split the definition into smaller files, or move guide bodies into files",
				fmt.Sprintf("the file has more than %d tokens (words, values, punctuation, line ends); PDL files are limited to %d", MaxTokens, MaxTokens))), nil, nil, false
		}
		switch t.Type {
		case tokOpenText, tokOpenString, tokOpenRaw, tokInvalid:
			findings = append(findings, tokenFinding(t))
			blank(work, t.Pos.Offset, t.Pos.Offset+len(t.Value))
		case tokString, tokText, tokRaw, tokComment:
			// Bytes that are not UTF-8 would reach the artifacts as
			// U+FFFD without a word; the first of each token is reported.
			if !utf8.ValidString(t.Value) {
				findings = append(findings, invalidUTF8(t))
			} else if t.Type != tokComment {
				// A control character written as itself would reach the
				// manifest and every terminal that shows it (docs/json.md).
				if f, bad := controlChar(t); bad {
					findings = append(findings, f)
				}
			}
		case tokPunct:
			switch t.Value {
			case "{":
				open = append(open, t.Pos)
				if len(open) > MaxDepth {
					return append(findings, Errorf(RuleSyntax, t.Pos, lexer.Position{},
						"valid PDL never nests blocks more than three deep, so this is most likely a { without its }",
						fmt.Sprintf("blocks nested more than %d deep", MaxDepth))), nil, nil, false
				}
			case "}":
				if len(open) == 0 {
					findings = append(findings, Errorf(RuleSyntax, t.Pos, lexer.Position{},
						"remove it, or add the { it should close", "unmatched }"))
					blank(work, t.Pos.Offset, t.Pos.Offset+1)
					continue
				}
				open = open[:len(open)-1]
			}
		case tokEOL:
			// A newline outside any block ends a top-level node: the
			// text after it parses on its own.
			if len(open) == 0 && t.Pos.Offset+1-last >= chunkBytes && t.Pos.Offset+1 < len(work) {
				p := t.Pos
				p.Advance("\n")
				cuts = append(cuts, p)
				last = p.Offset
			}
		}
	}
	for i := len(open) - 1; i >= 0; i-- {
		findings = append(findings, Errorf(RuleSyntax, open[i], lexer.Position{},
			"add the } that closes it", "block is never closed"))
	}
	// Close the open blocks at the very end so positions stay unchanged.
	return findings, append(work, strings.Repeat("\n}", len(open))...), cuts, true
}

// chunkBytes is the size above which a file is parsed in pieces, in
// parallel: lexing and building the tree allocate per token and node, so
// a generated file with thousands of entries is worth spreading over the
// CPUs. Small files take the plain path.
const chunkBytes = 128 << 10

// parseChunks parses work as independent runs of top-level nodes split
// at cuts, concurrently, and joins them. Positions stay absolute because
// each chunk's lexer starts at the chunk's position. It returns nil when a
// chunk does not parse, so the caller falls back to the recovering path.
func parseChunks(name string, work []byte, cuts []lexer.Position) *File {
	src := string(work)
	starts := append([]lexer.Position{{Filename: name, Line: 1, Column: 1}}, cuts...)
	files := make([]*File, len(starts))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, start := range starts {
		end := len(src)
		if i+1 < len(starts) {
			end = starts[i+1].Offset
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			pl, err := lexer.Upgrade(&scanner{src: src, pos: start, end: end})
			if err != nil {
				return
			}
			if f, err := parser.ParseFromLexer(pl); err == nil {
				files[i] = f
			}
		}()
	}
	wg.Wait()
	out := &File{}
	for i, f := range files {
		if f == nil {
			return nil
		}
		if i == 0 {
			out.Pos = f.Pos
		}
		out.EndPos = f.EndPos
		out.Body = append(out.Body, f.Body...)
	}
	return out
}

// tokenFinding explains a token that no valid PDL token can start.
func tokenFinding(t lexer.Token) report.Finding {
	end := t.Pos
	end.Advance(firstLine(t.Value))
	switch t.Type {
	case tokOpenText:
		return Errorf(RuleSyntax, t.Pos, end, `close the text block with """`, "text block is never closed")
	case tokOpenString:
		if !closedString(t.Value) {
			return Errorf(RuleSyntax, t.Pos, end, `close the string with " on the same line; use """ for text over several lines`,
				"string is never closed")
		}
		return Errorf(RuleSyntax, t.Pos, end, "use one of the escapes \\\\ \\\" \\n \\t \\uXXXX, or a `raw string`",
			"string has an invalid escape")
	case tokOpenRaw:
		return Errorf(RuleSyntax, t.Pos, end, "close the raw string with `", "raw string is never closed")
	}
	r, size := utf8.DecodeRuneInString(t.Value)
	if r == utf8.RuneError && size == 1 {
		return invalidUTF8(t)
	}
	return Errorf(RuleSyntax, t.Pos, end, "PDL has words, numbers, strings, = { } ; and # comments",
		fmt.Sprintf("unexpected character %q", r))
}

// invalidUTF8 reports the first byte of t that is not UTF-8. Quoting it
// as a character would show U+FFFD, which a file may well hold for real;
// the byte and the cause say more.
func invalidUTF8(t lexer.Token) report.Finding {
	i := 0
	for i < len(t.Value) {
		r, n := utf8.DecodeRuneInString(t.Value[i:])
		if r == utf8.RuneError && n == 1 {
			break
		}
		i += n
	}
	pos := t.Pos
	pos.Advance(t.Value[:i])
	end := pos
	end.Column++
	return Errorf(RuleSyntax, pos, end, "PDL files are UTF-8: save the file as UTF-8",
		fmt.Sprintf("byte 0x%02x is not UTF-8", t.Value[min(i, len(t.Value)-1)]))
}

// controlChar reports the first control character written as itself in a
// string, raw string or text block: a C0 control other than tab and line
// ends (CR only before LF), DEL or a C1 control. Escaped in a "…" string
// (\u0000, \x07) it is the author's choice and stays.
func controlChar(t lexer.Token) (report.Finding, bool) {
	for i, r := range t.Value {
		if !isControl(r) || r == '\t' || r == '\n' || (r == '\r' && strings.HasPrefix(t.Value[i+1:], "\n")) {
			continue
		}
		pos := t.Pos
		pos.Advance(t.Value[:i])
		end := pos
		end.Column++
		hint := fmt.Sprintf("write it as \\u%04x, or remove it", r)
		if t.Type != tokString {
			hint = fmt.Sprintf("raw strings and text blocks take no escapes: remove it, or use a \"…\" string and write it as \\u%04x", r)
		}
		return Errorf(RuleSyntax, pos, end, hint, fmt.Sprintf("control character U+%04X written as itself in a string", r)), true
	}
	return report.Finding{}, false
}

// isControl reports whether r is a C0 control, DEL or a C1 control.
func isControl(r rune) bool { return r < 0x20 || (0x7f <= r && r <= 0x9f) }

// closedString reports whether a string token ends in an unescaped quote.
func closedString(s string) bool {
	if len(s) < 2 || s[len(s)-1] != '"' {
		return false
	}
	backslashes := 0
	for i := len(s) - 2; i >= 0 && s[i] == '\\'; i-- {
		backslashes++
	}
	return backslashes%2 == 0
}

// grammarFinding turns a participle error into a finding with a hint.
func grammarFinding(perr participle.Error, work []byte) report.Finding {
	pos := perr.Position()
	var ute *participle.UnexpectedTokenError
	if errors.As(perr, &ute) {
		t := ute.Unexpected
		end := t.Pos
		end.Advance(firstLine(t.Value))
		switch {
		case afterKey(work[:min(t.Pos.Offset, len(work))]):
			return Errorf(RuleSyntax, pos, end, "give the option a value: key=value", "option has no value")
		case t.EOF():
			return Errorf(RuleSyntax, pos, lexer.Position{}, "complete the last statement", "unexpected end of file")
		case t.Value == "=":
			return Errorf(RuleSyntax, pos, end, "write an option as key=value, with no spaces around =",
				"unexpected =")
		case t.Value == "{":
			return Errorf(RuleSyntax, pos, end, "a block follows a statement's arguments: keyword args… { … }",
				"unexpected {")
		}
		return Errorf(RuleSyntax, pos, end, "a statement starts with a keyword (a word) on a new line",
			fmt.Sprintf("unexpected %s %s", describe(t), clip(t.Value)))
	}
	return Errorf(RuleSyntax, pos, lexer.Position{}, "", perr.Message())
}

// afterKey reports whether the text before an unexpected token ends in
// an option's "=" (spaces aside): the option has no value.
func afterKey(before []byte) bool {
	b := bytes.TrimRight(before, " \t\r")
	return len(b) > 0 && b[len(b)-1] == '='
}

// describe names a token's type for messages.
func describe(t lexer.Token) string {
	for name, typ := range lex.Symbols() {
		if typ == t.Type {
			switch name {
			case "Text":
				return "text block"
			case "Raw":
				return "raw string"
			}
			return strings.ToLower(name)
		}
	}
	return "token"
}

// clip shortens a token for a message.
func clip(s string) string {
	s = firstLine(s)
	if r := []rune(s); len(r) > 40 {
		s = string(r[:40]) + "…"
	}
	return s
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// Placeholder is the keyword recovery writes over a line with a grammar
// error: the line's tokens become spaces, its braces stay (so blocks stay
// balanced) and "_" heads them so they still parse. The compiler skips
// placeholder statements; their error is already reported.
const Placeholder = "_"

// blankLine repairs the line of a grammar error at offset as Placeholder
// describes. It reports whether anything changed: no change means
// recovery cannot progress.
func blankLine(work []byte, offset int) bool {
	line := 1 + strings.Count(string(work[:min(offset, len(work))]), "\n")
	l, _ := lex.LexString("", string(work))
	var toks []lexer.Token
	for {
		t, err := l.Next()
		if err != nil || t.EOF() || t.Pos.Line > line {
			break
		}
		if t.Pos.Line == line && t.Type != tokEOL {
			toks = append(toks, t)
		}
	}
	if len(toks) == 0 {
		return false
	}
	changed := false
	for _, t := range toks {
		if t.Type == tokPunct && t.Value != "=" {
			continue
		}
		blank(work, t.Pos.Offset, t.Pos.Offset+len(t.Value))
		changed = true
	}
	at := toks[0].Pos.Offset
	if toks[0].Type == tokPunct && toks[0].Value != "=" {
		// The line starts with a brace: the placeholder goes in the space
		// before it, when there is one.
		if at == 0 || work[at-1] != ' ' {
			return changed
		}
		at--
	}
	if string(work[at:at+1]) != Placeholder {
		work[at] = Placeholder[0]
		changed = true
	}
	return changed
}

// blank overwrites work[from:to] with spaces, keeping newlines so every
// later position stays where it was.
func blank(work []byte, from, to int) {
	for i := from; i < to && i < len(work); i++ {
		if work[i] != '\n' {
			work[i] = ' '
		}
	}
}
