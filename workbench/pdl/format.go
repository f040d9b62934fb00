package pdl

import (
	"bytes"
	"strings"

	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// indentUnit is one level of block indentation.
const indentUnit = "  "

// indents is the indentation of the deepest block Parse admits and its
// text blocks, sliced rather than built per line.
var indents = strings.Repeat(indentUnit, MaxDepth+1)

// indent is the indentation of depth.
func indent(depth int) string {
	if n := depth * len(indentUnit); n <= len(indents) {
		return indents[:n]
	}
	return strings.Repeat(indentUnit, depth)
}

// Format prints a parsed file in the canonical layout: one statement per
// line, two-space indentation per block, one space between arguments,
// options written key=value, a trailing comment two spaces after its
// statement, at most one blank line in a row and none at the start or end
// of a block, text blocks re-indented one level deeper than their
// statement. Literals keep their spelling, so Format changes layout only,
// never meaning; formatting its own output changes nothing.
func Format(f *File) []byte {
	var b bytes.Buffer
	// About the source's size: growing by doubling would leave two to
	// three times the output in garbage on a large file.
	b.Grow(int(f.EndPos.Offset) + int(f.EndPos.Offset)/8)
	body(&b, f.Body, 0)
	return b.Bytes()
}

// FormatSource parses and formats src. A file with syntax errors is not
// formatted: the errors come back instead, since recovery rewrote lines.
func FormatSource(name string, src []byte) ([]byte, []report.Finding) {
	f, findings := Parse(name, src)
	if len(findings) > 0 {
		return nil, findings
	}
	return Format(f), nil
}

func body(b *bytes.Buffer, nodes []Node, depth int) {
	ind := indent(depth)
	pendingBlank := false
	wrote := false
	for _, n := range nodes {
		if _, ok := n.(*Blank); ok {
			pendingBlank = wrote
			continue
		}
		if pendingBlank {
			b.WriteByte('\n')
			pendingBlank = false
		}
		wrote = true
		switch n := n.(type) {
		case *Comment:
			b.WriteString(ind)
			b.WriteString(strings.TrimRight(n.Text, " \t\r"))
			b.WriteByte('\n')
		case *Stmt:
			stmt(b, n, depth)
		}
	}
}

func stmt(b *bytes.Buffer, s *Stmt, depth int) {
	ind := indent(depth)
	b.WriteString(ind)
	b.WriteString(s.Keyword)
	for _, a := range s.Args {
		b.WriteByte(' ')
		if a.Key != "" {
			b.WriteString(a.Key)
			b.WriteByte('=')
		}
		b.WriteString(literal(&a.Value, depth))
	}
	if s.Block != nil {
		blk := s.Block
		if onlyBlank(blk.Body) && blk.OpenComment == "" {
			b.WriteString(" {}")
		} else {
			b.WriteString(" {")
			if blk.OpenComment != "" {
				b.WriteString("  ")
				b.WriteString(strings.TrimRight(blk.OpenComment, " \t\r"))
			}
			b.WriteByte('\n')
			body(b, blk.Body, depth+1)
			b.WriteString(ind)
			b.WriteByte('}')
		}
	}
	if s.Comment != "" {
		b.WriteString("  ")
		b.WriteString(strings.TrimRight(s.Comment, " \t\r"))
	}
	b.WriteByte('\n')
}

// literal prints a value; text blocks are re-indented for depth.
func literal(v *Value, depth int) string {
	if v.Kind() != KindText {
		return v.Literal()
	}
	ind := indent(depth + 1)
	var b strings.Builder
	b.WriteString(`"""` + "\n")
	for _, l := range strings.SplitAfter(v.Str(), "\n") {
		if l == "" {
			continue
		}
		if l != "\n" {
			b.WriteString(ind)
		}
		b.WriteString(l)
	}
	b.WriteString(ind + `"""`)
	return b.String()
}

// onlyBlank reports whether a body holds nothing but blank lines.
func onlyBlank(nodes []Node) bool {
	for _, n := range nodes {
		if _, ok := n.(*Blank); !ok {
			return false
		}
	}
	return true
}
