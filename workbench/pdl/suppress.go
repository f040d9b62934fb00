package pdl

import (
	"bytes"
	"unicode/utf8"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/base/suppress"
)

// Suppressions finds the `# pilotage:ignore` comments of a PDL file and
// what each covers: a comment trailing a statement (after it, or after
// its opening brace) covers that statement, one alone on a line covers
// the statement on the next line; either way with its block. A comment
// alone before a blank line, another comment or a closing brace covers
// nothing, so it is reported as unused. A file without the marker is not
// parsed again.
func Suppressions(name string, src []byte) []suppress.Directive {
	if !bytes.Contains(src, []byte(suppress.Marker)) {
		return nil
	}
	f, _ := Parse(name, src)
	if f == nil {
		return nil
	}
	var out []suppress.Directive
	var walk func(body []Node)
	walk = func(body []Node) {
		for i, n := range body {
			switch n := n.(type) {
			case *Comment:
				if c, ok := suppress.ParseComment(n.Text); ok && n.Text != "" {
					d := suppress.Directive{Comment: c, At: at(name, n.Pos), Width: utf8.RuneCountInString(n.Text)}
					d.Start, d.End = d.At, d.At // covers nothing…
					if i+1 < len(body) {
						if next, ok := body[i+1].(*Stmt); ok {
							d.Start, d.End = extent(name, next) // …unless a statement follows
						}
					}
					out = append(out, d)
				}
			case *Stmt:
				for _, t := range trailing(n) {
					if c, ok := suppress.ParseComment(t.text); ok {
						d := suppress.Directive{Comment: c, At: at(name, commentPos(src, t.after, t.text)), Width: utf8.RuneCountInString(t.text)}
						d.Start, d.End = extent(name, n)
						out = append(out, d)
					}
				}
				if n.Block != nil {
					walk(n.Block.Body)
				}
			}
		}
	}
	walk(f.Body)
	return out
}

// trailingComment is a comment on a statement's own line, and the
// position it follows.
type trailingComment struct {
	text  string
	after Pos
}

// trailing are the comments on a statement's own lines: after its
// opening brace and after the statement.
func trailing(s *Stmt) []trailingComment {
	var out []trailingComment
	if s.Block != nil && s.Block.OpenComment != "" {
		out = append(out, trailingComment{s.Block.OpenComment, s.Block.Pos})
	}
	if s.Comment != "" {
		after := s.Pos // a statement without a block ends past its comment
		if s.Block != nil {
			after = s.Block.EndPos
		}
		out = append(out, trailingComment{s.Comment, after})
	}
	return out
}

// commentPos is where text, a comment, starts after the position after,
// on its line or, for a statement without a block, on the statement's
// lines; after itself when it is not found there, so a finding on the
// comment is still near it.
func commentPos(src []byte, after Pos, text string) Pos {
	from := min(int(after.Offset), len(src))
	// Bounded, so a file of many directives is never scanned to its end
	// for each: a statement's own lines before its comment are shorter.
	window := src[from:min(len(src), from+len(text)+64<<10)]
	// The comment ends its line; the same text earlier on it (inside a
	// quoted value) is not the comment.
	for at := 0; ; {
		i := bytes.Index(window[at:], []byte(text))
		if i < 0 {
			return after
		}
		end := at + i + len(text)
		if rest := bytes.TrimLeft(window[end:], " \t"); len(rest) == 0 || rest[0] == '\n' || rest[0] == '\r' {
			after.Advance(string(src[from : from+at+i]))
			return after
		}
		at = end
	}
}

// extent is where a statement starts and the position just after it:
// the start of the line after its last one when it ends at a newline,
// else the token that follows it on the same line.
func extent(name string, s *Stmt) (start, end report.Location) {
	last := s.Pos.Line
	if s.Block != nil {
		last = s.Block.EndPos.Line
	}
	end = at(name, s.EndPos)
	if s.EndPos.Line > last {
		end.Column = 1
	}
	return at(name, s.Pos), end
}

func at(name string, p Pos) report.Location {
	return report.Location{File: name, Line: int(p.Line), Column: int(p.Column)}
}
