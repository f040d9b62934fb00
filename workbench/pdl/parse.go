package pdl

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/base/textenc"
	"github.com/pilotage-dev/pilotage/internal/base/textpos"
)

// Bounds that keep hostile input cheap. No real PDL file comes near them.
const (
	// MaxFileBytes is the largest file Parse reads.
	MaxFileBytes = 32 << 20
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
// only for files over MaxFileBytes, nested past MaxDepth, in UTF-16 or
// UTF-32, or whose tree would go over its budget (treeBudget), which get
// one finding that says so) is the parse of the repaired text, so the
// compiler can report its own errors too, unless its braces did not
// balance (File.Unbalanced).
func Parse(name string, src []byte) (*File, []report.Finding) {
	return parse(name, src, false, false)
}

// ParseShared is Parse for a caller that never changes src again: the
// tree's strings are slices of src itself rather than of a copy, which
// whoever keeps the tree or a string of it keeps whole (the compiler's
// model does), a byte a byte of the file.
func ParseShared(name string, src []byte) (*File, []report.Finding) {
	return parse(name, src, true, false)
}

// Stream is Parse (ParseShared when shared is set) without the tree: it
// reads src as they do and returns the same findings, and a File whose
// Body is empty, whose Statements read the text again a statement at a
// time. A reader that needs each top-level statement once or twice (the
// compiler) then never holds a large file's whole tree, 4 bytes a byte of
// it (docs/performance.md, "Peak memory of build and lint").
func Stream(name string, src []byte, shared bool) (*File, []report.Finding) {
	return parse(name, src, shared, true)
}

// parse reads src; streamed, it only checks it (checkTree) and returns a
// File to read again a statement at a time.
func parse(name string, src []byte, shared, streamed bool) (*File, []report.Finding) {
	if len(src) > MaxFileBytes {
		return nil, []report.Finding{Errorf(RuleSyntax, lexer.Position{Filename: name, Line: 1, Column: 1}, lexer.Position{},
			"split the definition or move guide bodies into files",
			fmt.Sprintf("file is %d bytes; PDL files are limited to %d", len(src), MaxFileBytes))}
	}
	if enc := textenc.Sniff(src); enc.Foreign() {
		return nil, []report.Finding{Errorf(RuleSyntax, lexer.Position{Filename: name, Line: 1, Column: 1}, lexer.Position{},
			enc.Convert(), "the file "+enc.Shows+"; PDL files are UTF-8")}
	}
	if at := textpos.LoneCR(src); at >= 0 {
		pos := Pos{Line: 1, Column: 1}
		pos.Advance(view(src[:at]))
		end := pos
		end.Column++
		return nil, []report.Finding{Errorf(RuleSyntax, pos.In(name), end.In(name),
			"save the file with LF or CRLF line ends (mac2unix converts a file of CR alone)",
			"a carriage return not followed by a line feed: PDL ends a line with LF or CRLF")}
	}
	findings, work, quiet, ok, unbalanced := scan(name, src)
	if !ok || len(findings) >= maxSyntaxErrors {
		// Past the error cap the rest of the file is unchecked, and the
		// grammar pass would add no finding, only a tree.
		return nil, sortFindings(findings)
	}
	// The tree's strings are slices of one copy of the text: the
	// caller's bytes may change after Parse returns (unless shared), work
	// (the repaired copy) is Parse's own and changes no more once its
	// tree is built.
	var text string
	switch {
	case work == nil && shared:
		text = view(src)
	case work == nil:
		text = string(src)
	default:
		text = view(work)
	}
	for {
		budget := treeBudget(len(src))
		if streamed {
			budget = streamBudget(len(src))
		}
		f, err := readTree(name, text, budget, streamed)
		if f != nil {
			f.Unbalanced = unbalanced
		}
		if err == nil {
			return f, sortFindings(findings)
		}
		if over, ok := err.(*overBudget); ok {
			return nil, sortFindings(append(findings, budgetFinding(name, over.tok, len(src), streamed)))
		}
		if len(findings) >= maxSyntaxErrors {
			return f, sortFindings(findings)
		}
		serr := err.(*syntaxError)
		if !quiet[serr.tok.pos.Line] {
			findings = append(findings, grammarFinding(name, serr, text))
		}
		if work == nil {
			work = []byte(text)
			text = view(work)
		}
		if !blankLine(work, int(serr.tok.pos.Offset)) {
			return f, sortFindings(findings)
		}
	}
}

// view is b as a string without a copy; b must not change while the
// string is in use.
func view(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

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
// braces (where nesting says the brace is missing), and repairs a copy
// of it (blanking bad tokens, closing open blocks) so the grammar pass
// sees only its own kind of error; unbalanced says the braces did not
// balance. work is
// the repaired copy, nil when nothing needed repair. ok is false when the
// nesting is too deep to parse safely. quiet holds the lines of a value
// left unquoted (tokBare): the rest of such a line is most likely the
// rest of that value (when=input.n == 1), so its one finding is the
// line's only one, and when an expression goes on after the value the
// line is blanked as a grammar error's is.
func scan(name string, src []byte) (findings []report.Finding, work []byte, quiet map[int32]bool, ok, unbalanced bool) {
	repair := func(from, to int) {
		if work == nil {
			work = bytes.Clone(src)
		}
		blank(work, from, to)
	}
	l := newScanner(view(src))
	nest := nesting{name: name, src: l.src}
	var prev token
	// starts is whether prev starts a statement: its keyword, if a word.
	starts := false
	stmt := 0      // the offset of the statement being read
	var head token // its first token
	var drop []int // offsets of lines recovery blanks (blankLine)
	for len(findings) < maxSyntaxErrors {
		t := l.next()
		if t.typ == tokEOF {
			break
		}
		from, to := int(t.pos.Offset), int(t.pos.Offset)+len(t.val)
		before := prev
		prev = t
		keyword := starts && before.typ == tokIdent
		// A statement starts at the file's start (before is then the
		// zero token), on a new line, after a ; or a brace.
		starts = before.typ == tokEOF || before.typ == tokEOL || before.typ == tokSemi || before.typ == tokComment ||
			before.typ == tokPunct && before.val != "="
		if starts {
			stmt, head = from, t
		}
		n, json := 0, false
		if !quiet[t.pos.Line] {
			if keyword {
				n = unquotedJSON(t, before, l.src[from:])
				json = n > 0
			}
			if !json {
				n = valueExpr(t, before, l.src[to:], keyword)
			}
		}
		if n > 0 {
			// An expression or JSON left unquoted is one mistake,
			// however many of its characters no PDL token starts with:
			// one finding over all of it, whose braces are its own, not
			// blocks. Read as quoted, the value would leave the rest of
			// its expression as more arguments, each an error of the
			// compiler's: the statement is left out instead, as
			// Placeholder.
			quiet = markQuiet(quiet, t.pos.Line)
			nest.token(token{typ: tokRaw, val: l.src[from : from+n], pos: t.pos})
			if json {
				findings = append(findings, jsonFinding(name, t.pos, before.val, l.src[from:from+n]))
			} else {
				findings = append(findings, exprFinding(name, t.pos, l.src[from:from+n]))
			}
			l.skip(from + n - to)
			repair(stmt, from+n)
			work[stmt] = Placeholder[0]
			if head.typ == tokIdent {
				keepKeyword(work[stmt:from+n], head.val)
			}
			continue
		}
		if t.typ != tokEOL && t.typ != tokComment {
			nest.token(t)
		}
		if before.typ == tokKey && before.val == "when=" && (t.typ == tokBare || t.typ == tokInvalid) {
			// A condition left unquoted, however it starts (input.ok,
			// !input.ok, 'x' == input.s): one finding over all of it.
			if quiet[t.pos.Line] {
				continue
			}
			quiet = markQuiet(quiet, t.pos.Line)
			findings = append(findings, whenFinding(name, t.pos, l.src[from:]))
			if t.typ == tokInvalid || goesOn(l.src[to:]) {
				// Its CEL goes on past the space its value ends at
				// (when=size(input) > 0), or it starts with a character
				// no value does: read as quoted, its value would leave
				// the rest as more arguments, so the statement is left
				// out instead.
				drop = append(drop, from)
			}
			continue
		}
		switch t.typ {
		case tokBare:
			if quiet[t.pos.Line] {
				continue
			}
			quiet = markQuiet(quiet, t.pos.Line)
			if f, ok := bareFinding(name, t, before); ok {
				findings = append(findings, f)
				if goesOn(l.src[to:]) {
					// An option's expression goes on past the space its
					// value ends at (file=a.b + c): read as quoted, its
					// value would leave the rest as more arguments, so
					// the statement is left out instead.
					drop = append(drop, from)
				}
				continue
			}
			// A statement cannot start with a value: the bad characters
			// are reported as any others, and the line's grammar error
			// is theirs.
			findings = append(findings, bareAsInvalid(name, t))
			repair(from, to)
		case tokOpenText, tokOpenString, tokOpenRaw, tokInvalid:
			if !quiet[t.pos.Line] {
				findings = append(findings, tokenFinding(name, t))
			}
			repair(from, to)
		case tokString, tokText, tokRaw, tokComment:
			// Bytes that are not UTF-8 would reach the artifacts as
			// U+FFFD without a word; the first of each token is reported.
			if !utf8.ValidString(t.val) {
				findings = append(findings, invalidUTF8(name, t))
			} else if t.typ != tokComment {
				// A control character written as itself would reach the
				// manifest and every terminal that shows it (docs/json.md).
				if f, bad := controlChar(name, t); bad {
					findings = append(findings, f)
				}
			}
		case tokPunct:
			switch t.val {
			case "{":
				nest.push(t)
				if len(nest.open) > MaxDepth {
					return append(findings, Errorf(RuleSyntax, t.pos.In(name), lexer.Position{},
						"valid PDL never nests blocks more than three deep, so this is most likely a { without its }",
						fmt.Sprintf("blocks nested more than %d deep", MaxDepth))), nil, nil, false, true
				}
			case "}":
				if f, ok := nest.pop(t); !ok {
					findings = append(findings, f)
					unbalanced = true
					repair(from, to)
				}
			}
		}
	}
	for _, at := range drop {
		if work == nil {
			work = bytes.Clone(src)
		}
		blankLine(work, at)
	}
	if len(nest.open) > 0 {
		findings = append(findings, nest.unclosed()...)
		unbalanced = true
		// Close the open blocks at the very end so positions stay unchanged.
		if work == nil {
			work = bytes.Clone(src)
		}
		work = append(work, strings.Repeat("\n}", len(nest.open))...)
	}
	return findings, work, quiet, true, unbalanced
}

// budgetFinding reports the token at which a file's reading went over
// its budget: its tree, read whole (Parse), or what its statements are
// charged, streamed (Stream).
func budgetFinding(name string, t token, size int, streamed bool) report.Finding {
	end := t.pos
	end.Advance(firstLine(t.val))
	const doc = `docs/pdl.md, "How large a file can be"`
	if streamed {
		return Errorf(RuleSyntax, t.pos.In(name), end.In(name),
			fmt.Sprintf("PDL compiles a file within %d bytes of memory a byte of it, plus %d MiB, and counts %d bytes for each catalog entry (what the verbs hold of one at their peak), so a file of %d bytes has room for about %d entries, fewer beside other statements; write fewer entries in it, or fuller ones (%s)",
				streamPerByte, treeSlack>>20, keptCost, size, streamBudget(size)/keptCost, doc),
			fmt.Sprintf("too many entries and statements for a file of %d bytes: compiling them would keep more than %d bytes of memory", size, streamBudget(size)))
	}
	return Errorf(RuleSyntax, t.pos.In(name), end.In(name),
		fmt.Sprintf("PDL reads a file whole (pilotage fmt, the language server) within %d bytes of memory a byte of it, plus %d MiB, and a statement takes about %d bytes, a value %d, so a file of %d bytes has room for about %d statements of one value; lint, build, validate and serve read it a statement at a time, with room for more (%s)",
			treePerByte, treeSlack>>20, stmtCost, argCost, size, treeBudget(size)/(stmtCost+argCost), doc),
		fmt.Sprintf("too many statements and values for a file of %d bytes: reading them would take more than %d bytes of memory", size, treeBudget(size)))
}

// tokenFinding explains a token that no valid PDL token can start.
func tokenFinding(name string, t token) report.Finding {
	end := t.pos
	end.Advance(firstLine(t.val))
	pos := t.pos.In(name)
	switch t.typ {
	case tokOpenText:
		return Errorf(RuleSyntax, pos, end.In(name), `close the text block with """`, "text block is never closed")
	case tokOpenString:
		if !closedString(t.val) {
			return Errorf(RuleSyntax, pos, end.In(name), `close the string with " on the same line; use """ for text over several lines`,
				"string is never closed")
		}
		return Errorf(RuleSyntax, pos, end.In(name), "use one of the escapes \\\\ \\\" \\n \\t \\uXXXX, or a `raw string`",
			"string has an invalid escape")
	case tokOpenRaw:
		return Errorf(RuleSyntax, pos, end.In(name), "close the raw string with `", "raw string is never closed")
	}
	r, size := utf8.DecodeRuneInString(t.val)
	if r == utf8.RuneError && size == 1 {
		return invalidUTF8(name, t)
	}
	return Errorf(RuleSyntax, pos, end.In(name), "PDL has words, numbers, strings, = { } ; and # comments",
		fmt.Sprintf("unexpected character %q", r))
}

// bareFinding reports a value left unquoted (tokBare) after before, the
// token ahead of it, as one error that says how to quote it: in double
// quotes (an id, a pattern, a path; a when= condition is whenFinding's).
// An expression that goes on after it on its line is valueExpr's. ok is
// false when t starts its statement, where no value can be.
func bareFinding(name string, t, before token) (report.Finding, bool) {
	end := t.pos
	end.Advance(t.val)
	switch {
	case before.typ == tokKey:
		return Errorf(RuleSyntax, t.pos.In(name), end.In(name), fmt.Sprintf("did you mean %s%q?", before.val, t.val),
			fmt.Sprintf("%s%s needs quotes: a word holds only letters, digits, _ and -", before.val, clip(t.val))), true
	case isValue(before.typ):
		return Errorf(RuleSyntax, t.pos.In(name), end.In(name), fmt.Sprintf("did you mean %q?", t.val),
			fmt.Sprintf("%s needs quotes: a word holds only letters, digits, _ and -", clip(t.val))), true
	}
	return report.Finding{}, false
}

// whenFinding reports a condition left unquoted after when=, at pos,
// src being the text from there: the whole condition (condLen), not the
// token the scanner stopped at (input.item.startsWith( of
// input.item.startsWith("a"), ! of !input.ok), hinted in back-quotes.
// A CEL string whose ' is never closed is named at that quote, and the
// condition with the rest of the line it swallows: ended before it, the
// condition was silently cut (when=input.s == of when=input.s == 'x).
func whenFinding(name string, pos Pos, src string) report.Finding {
	n, open := condLen(src)
	if open >= 0 {
		at := pos
		at.Advance(src[:open])
		end := at
		end.Advance("'")
		cond := strings.TrimRight(firstLine(src), " \t\r")
		return Errorf(RuleSyntax, at.In(name), end.In(name), "close the CEL string with ', and put CEL in back-quotes: when=`…`",
			fmt.Sprintf("when=%s is CEL without its back-quotes, and its ' at column %d opens a string never closed", clip(cond), at.Column))
	}
	cond := src[:n]
	end := pos
	end.Advance(cond)
	hint := "put CEL in back-quotes: when=`…`"
	if !strings.Contains(cond, "`") && clip(cond) == cond {
		hint = fmt.Sprintf("put CEL in back-quotes: when=`%s`", clip(cond))
	}
	return Errorf(RuleSyntax, pos.In(name), end.In(name), hint,
		fmt.Sprintf("when=%s is CEL without its back-quotes", clip(cond)))
}

// condLen is the length of a condition left unquoted after when= that
// src, which starts with it, holds on its line: what runs on with no
// space between, inside brackets it opened (exists(i, i == "a")), and
// each operator after a space with the operand after it (size(input) >
// 0, input.item == "x", x in [1, 2], !input.ok). A CEL string in single
// quotes ('x') is one operand, whatever it holds; open is the offset of
// a ' that opens one never closed on the line, else -1. The fail
// statement's message that follows is no part of it: a double-quoted
// string after a space that no operator, open bracket or comma asks for
// ends the condition, even inside a bracket it left open (size(input
// "the message").
func condLen(src string) (n, open int) {
	end, depth, operand := 0, 0, false
	l := newScanner(src)
	for t := l.next(); t.typ != tokEOL && t.typ != tokEOF && t.typ != tokComment && t.typ != tokSemi; t = l.next() {
		if t.typ == tokPunct && (t.val == "{" || t.val == "}") {
			break
		}
		if t.val == "'" {
			n, closed := quotedLen(src[t.pos.Offset:], '\'')
			if !closed {
				return end, int(t.pos.Offset)
			}
			l.skip(n - 1)
			t.typ, t.val = tokRaw, src[t.pos.Offset:int(t.pos.Offset)+n]
		}
		// An operator: a character no PDL token starts with, but for
		// what closes or separates (an operand ends there), = of ==,
		// and CEL's in.
		op := t.typ == tokInvalid && !strings.ContainsAny(t.val[:1], ")],") || t.typ == tokPunct && t.val == "=" || t.typ == tokIdent && t.val == "in"
		if int(t.pos.Offset) > end && !operand && !op && (depth <= 0 || t.typ == tokString) {
			break
		}
		operand = op || t.typ == tokInvalid && t.val == ","
		if t.typ != tokString && t.typ != tokRaw && t.typ != tokText {
			depth += brackets(t.val)
		}
		end = int(t.pos.Offset) + len(t.val)
	}
	return end, -1
}

// brackets is how many more ( and [ s opens than it closes.
func brackets(s string) int {
	return strings.Count(s, "(") + strings.Count(s, "[") - strings.Count(s, ")") - strings.Count(s, "]")
}

// isValue reports whether a token of type typ is a statement's keyword
// or one of its values, which a value may follow.
func isValue(typ tokType) bool {
	return typ == tokIdent || typ == tokNumber || typ == tokString || typ == tokRaw || typ == tokText
}

// valueExpr is the length of the expression left unquoted that t
// starts, rest being the text after t and before the token ahead of it
// (keyword tells whether before is its statement's keyword), or 0 when
// t starts none. A value left unquoted (tokBare) starts one when it
// goes on, with no space between (input.item.startsWith("a")) or with an
// operator (input.x == 1); a statement's first value does when it is a
// character no PDL token starts with (!input.x, [input.item], 'it'), a
// number an operator follows (1 + 2) or a { that does not open a block
// ({"added": input.item}). An option's value (when=size(input) > 0)
// ends at a space, and is bareFinding's.
func valueExpr(t, before token, rest string, keyword bool) int {
	if !isValue(before.typ) {
		return 0
	}
	switch {
	case t.typ == tokBare, keyword && t.typ == tokNumber:
		if goesOn(rest) {
			return len(t.val) + exprLen(rest, 0)
		}
	case keyword && t.typ == tokInvalid && t.val[0] < utf8.RuneSelf && !negative(t, rest):
		return len(t.val) + exprLen(rest, 0)
	case keyword && t.val == "{" && opensNoBlock(rest):
		return len(t.val) + exprLen(rest, 1)
	}
	return 0
}

// negative reports whether t and rest start with a negative number and
// nothing more (steps -1), which is a number out of range rather than an
// expression.
func negative(t token, rest string) bool {
	n := newScanner(rest).next()
	return t.val == "-" && n.typ == tokNumber && n.pos.Offset == 0 && !goesOn(rest[len(n.val):])
}

// goesOn reports whether an expression goes on in rest, the text after
// one of its values: with no space between, or with an operator (a
// character no PDL token starts with, or ==). A lone = goes on no
// expression: entry todo.list = x is an id and a stray =.
func goesOn(rest string) bool {
	if rest == "" || strings.IndexByte(" \t\r\n#;{}", rest[0]) >= 0 {
		l := newScanner(rest)
		t := l.next()
		return t.typ == tokInvalid || t.val == "=" && strings.HasPrefix(rest[t.pos.Offset+1:], "=")
	}
	return true
}

// opensNoBlock reports whether rest, the text after a {, holds on its
// line no statement a block would: a string, a number or a character no
// PDL token starts with comes first.
func opensNoBlock(rest string) bool {
	switch newScanner(rest).next().typ {
	case tokString, tokNumber, tokInvalid, tokRaw, tokText:
		return true
	}
	return false
}

// exprLen is the length of the rest of an expression in rest, which
// depth of its { are open at: to its line's end, its comment, a ; or a
// } that closes no { of its own.
func exprLen(rest string, depth int) int {
	l := newScanner(rest)
	end := 0
	for t := l.next(); t.typ != tokEOL && t.typ != tokEOF && t.typ != tokComment && t.typ != tokSemi; t = l.next() {
		if t.val == "}" && t.typ == tokPunct {
			if depth == 0 {
				break
			}
			depth--
		} else if t.val == "{" && t.typ == tokPunct {
			depth++
		}
		end = int(t.pos.Offset) + len(t.val)
	}
	return end
}

// exprFinding reports expr, an expression left unquoted at pos, with a
// hint that quotes it: in back-quotes, the form compute and when= take
// for CEL, unless it holds one.
func exprFinding(name string, pos Pos, expr string) report.Finding {
	end := pos
	end.Advance(expr)
	hint := fmt.Sprintf("put the whole expression in back-quotes: `%s`", clip(expr))
	if strings.Contains(expr, "`") {
		hint = fmt.Sprintf("put the whole expression in quotes: %s", clip(strconv.Quote(expr)))
	}
	return Errorf(RuleSyntax, pos.In(name), end.In(name), hint,
		fmt.Sprintf("%s needs quotes: a value that holds operators or brackets is a string", clip(expr)))
}

// markQuiet adds line to quiet, the lines whose first unquoted value
// is their only finding (scan).
func markQuiet(quiet map[int32]bool, line int32) map[int32]bool {
	if quiet == nil {
		quiet = map[int32]bool{}
	}
	quiet[line] = true
	return quiet
}

// bareAsInvalid reports the first character of an unquoted value that
// no PDL token starts with, as tokenFinding does.
func bareAsInvalid(name string, t token) report.Finding {
	at := strings.IndexAny(t.val, bareMarks)
	pos := t.pos
	pos.Advance(t.val[:at])
	return tokenFinding(name, token{typ: tokInvalid, val: t.val[at : at+1], pos: pos})
}

// invalidUTF8 reports the first byte of t that is not UTF-8. Quoting it
// as a character would show U+FFFD, which a file may well hold for real;
// the byte and the cause say more.
func invalidUTF8(name string, t token) report.Finding {
	at, _, _ := fault(t.val, false)
	return faultFinding(RuleSyntax, name, t.pos, t.val, at, "PDL files are UTF-8: save the file as UTF-8", "")
}

// controlChar reports the first control character written as itself in a
// string, raw string or text block. Escaped in a "…" string (\u0000,
// \x07) it is the author's choice and stays.
func controlChar(name string, t token) (report.Finding, bool) {
	at, r, bad := fault(t.val, true)
	if !bad {
		return report.Finding{}, false
	}
	hint := fmt.Sprintf("write it as \\u%04x, or remove it", r)
	if t.typ != tokString {
		hint = fmt.Sprintf("raw strings and text blocks take no escapes: remove it, or use a \"…\" string and write it as \\u%04x", r)
	}
	return faultFinding(RuleSyntax, name, t.pos, t.val, at, hint, " in a string"), true
}

// fault finds the first character of s that no text pilotage publishes
// may hold: a byte that is not UTF-8 (r is then utf8.RuneError) or, with
// controls, a control character written as itself: a C0 control other
// than tab and line ends (a CR only before an LF), DEL or a C1 control
// (docs/json.md, "Strings in PDL"). at is its offset in s.
func fault(s string, controls bool) (at int, r rune, found bool) {
	if !controls && utf8.ValidString(s) {
		return 0, 0, false
	}
	for i, r := range s {
		switch {
		case r == utf8.RuneError:
			// A U+FFFD the file holds for real is three bytes.
			if _, n := utf8.DecodeRuneInString(s[i:]); n == 1 {
				return i, r, true
			}
		case controls && writtenControl(s, i, r):
			return i, r, true
		}
	}
	return 0, 0, false
}

// faultFinding is the finding of rule for the fault at s[at], s starting
// at start in the file name; where completes the message of a control
// character.
func faultFinding(rule, name string, start Pos, s string, at int, hint, where string) report.Finding {
	pos := start
	pos.Advance(s[:at])
	end := pos
	end.Column++
	r, n := utf8.DecodeRuneInString(s[at:])
	if r == utf8.RuneError && n <= 1 {
		return Errorf(rule, pos.In(name), end.In(name), hint, fmt.Sprintf("byte 0x%02x is not UTF-8", s[min(at, len(s)-1)]))
	}
	return Errorf(rule, pos.In(name), end.In(name), hint, fmt.Sprintf("control character U+%04X written as itself%s", r, where))
}

// firstControl is the byte index in s of the first control character
// controlChar reports, -1 when there is none.
func firstControl(s string) int {
	for i, r := range s {
		if writtenControl(s, i, r) {
			return i
		}
	}
	return -1
}

// writtenControl reports whether r, at i in s, is a control character
// no text may hold written as itself: a C0 control other than tab and
// line ends (a CR only before an LF), DEL or a C1 control.
func writtenControl(s string, i int, r rune) bool {
	return isControl(r) && r != '\t' && r != '\n' && (r != '\r' || !strings.HasPrefix(s[i+1:], "\n"))
}

// WrittenControl reports whether text, part of v's value, starts with a
// control character written as itself in v, which parsing reported as a
// pdl-syntax error (controlChar): a check of what v says (its JSON) that
// stops there would only report that character again. One from an
// escape in a "…" string is the author's choice, and not reported.
func (v *Value) WrittenControl(text []byte) bool {
	return v.Kind() != KindNumber && v.Kind() != KindIdent && firstControl(v.Token) >= 0 &&
		firstControl(string(text[:min(len(text), 2)])) == 0
}

// NamedText checks the text of a file a PDL file names (a guide, a JSON
// Schema) as a PDL string is checked: its first byte that is not UTF-8,
// or else its first control character written as itself, is an error
// (pdl-file) at its line and column in the file named name, columns in
// characters. A UTF-8 byte order mark at its start is not counted, as an
// editor shows none; a file in another encoding is its reader's to name
// (textenc) and is not checked here. kind starts the hint of a byte that
// is not UTF-8 ("guides are UTF-8 Markdown"); control gives the hint of a
// control character.
func NamedText(name string, src []byte, kind string, control func(r rune) string) (report.Finding, bool) {
	s := view(src)
	start := Pos{Line: 1, Column: 1}
	switch enc := textenc.Sniff(src); {
	case enc.Foreign():
		return report.Finding{}, false
	case enc.UTF8WithBOM():
		start.Offset = int32(len(textenc.UTF8BOM))
		s = s[len(textenc.UTF8BOM):]
	}
	at, r, bad := fault(s, true)
	if !bad {
		return report.Finding{}, false
	}
	hint := kind + ": save the file as UTF-8 (one in Latin-1 or Windows-1252 converts with iconv -f WINDOWS-1252 -t UTF-8)"
	if r != utf8.RuneError {
		hint = control(r)
	}
	return faultFinding(RuleFile, name, start, s, at, hint, ""), true
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

// grammarFinding turns a grammar error into a finding with a hint.
func grammarFinding(name string, e *syntaxError, text string) report.Finding {
	t := e.tok
	pos := t.pos.In(name)
	end := t.pos
	end.Advance(firstLine(t.val))
	switch {
	case afterKey(text[:min(int(t.pos.Offset), len(text))]):
		return Errorf(RuleSyntax, pos, end.In(name), "give the option a value: key=value", "option has no value")
	case t.typ == tokEOF:
		return Errorf(RuleSyntax, pos, lexer.Position{}, "complete the last statement", "unexpected end of file")
	case t.val == "=" || t.typ == tokKey:
		if hint, ok := settingHint(text, t); ok {
			return Errorf(RuleSyntax, pos, end.In(name), hint, fmt.Sprintf("unexpected %s", clip(t.val)))
		}
		if t.typ == tokKey {
			break
		}
		return Errorf(RuleSyntax, pos, end.In(name), "write an option as key=value, with no spaces around =",
			"unexpected =")
	case t.val == "{":
		return Errorf(RuleSyntax, pos, end.In(name), "a block follows a statement's arguments: keyword args… { … }",
			"unexpected {")
	}
	return Errorf(RuleSyntax, pos, end.In(name), "a statement starts with a keyword (a word) on a new line",
		fmt.Sprintf("unexpected %s %s", t.typ, clip(t.val)))
}

// settingHint helps with a statement written as an option, t being its
// "=" (mode = immediate) or the key it ends (mode=immediate): the word
// before the "=" starts the statement, so it is a keyword, whose value
// follows it after a space.
func settingHint(text string, t token) (string, bool) {
	at := int(t.pos.Offset)
	start := strings.LastIndexByte(text[:at], '\n') + 1
	kw := strings.TrimSpace(strings.TrimLeft(text[start:at], " \t;{"))
	rest := text[at+len(t.val):]
	if t.typ == tokKey {
		if kw != "" {
			return "", false
		}
		kw = t.val[:len(t.val)-1]
	} else if !isWord(kw) {
		return "", false
	}
	value := "…"
	if v := newScanner(rest).next(); isLiteral(v.typ) || v.typ == tokOpenString {
		value = clip(v.val)
	}
	return fmt.Sprintf("write `%s %s`: a statement's value follows its keyword", kw, value), true
}

// isWord reports whether s is one PDL word.
func isWord(s string) bool {
	for i := range len(s) {
		if !isWordByte(s[i], i) {
			return false
		}
	}
	return s != ""
}

// afterKey reports whether the text before an unexpected token ends in
// an option's "=" (spaces aside): the option has no value.
func afterKey(before string) bool {
	b := strings.TrimRight(before, " \t\r")
	return len(b) > 0 && b[len(b)-1] == '='
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
	line := int32(1 + bytes.Count(work[:min(offset, len(work))], []byte("\n")))
	l := newScanner(view(work))
	var toks []token
	for {
		t := l.next()
		if t.typ == tokEOF || t.pos.Line > line {
			break
		}
		if t.pos.Line == line && t.typ != tokEOL {
			toks = append(toks, t)
		}
	}
	if len(toks) == 0 {
		return false
	}
	// The tokens are views of work, which blanking changes: look at the
	// first before. A line blanked already (its placeholder and braces
	// alone) blanks to itself: only a change of its bytes is progress.
	brace := toks[0].typ == tokPunct && toks[0].val != "="
	last := toks[len(toks)-1]
	from, to := int(toks[0].pos.Offset), int(last.pos.Offset)+len(last.val)
	was := string(work[max(from-1, 0):to])
	for _, t := range toks {
		if t.typ == tokPunct && t.val != "=" {
			continue
		}
		blank(work, int(t.pos.Offset), int(t.pos.Offset)+len(t.val))
	}
	at := from
	if brace {
		// The line starts with a brace: the placeholder goes in the space
		// before it, when there is one.
		if at == 0 || work[at-1] != ' ' {
			return string(work[max(from-1, 0):to]) != was
		}
		at--
	}
	work[at] = Placeholder[0]
	return string(work[max(from-1, 0):to]) != was
}

// keepKeyword writes keyword after the Placeholder that heads stmt, a
// statement blanked for an error of its value, when its first line has
// the room (it has unless the value starts a line of its own right after
// a keyword written against it), so the compiler knows the statement is
// there (Stmt.Dropped).
func keepKeyword(stmt []byte, keyword string) {
	n := 2 + len(keyword)
	if n <= len(stmt) && bytes.IndexByte(stmt[:n], '\n') < 0 {
		copy(stmt[2:], keyword)
	}
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
