package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
)

// MaxIndentDepth is how deep IndentJSON indents: a value nested deeper
// is written compact on the line where it opens. json.Indent puts every
// token of a value nested d deep on its own line behind 2·d spaces, so
// a value of n bytes nested n/2 deep grows to about n²/2 bytes (a 20 KB
// run output became 200 MB); bounded, a token's line carries at most
// 2·MaxIndentDepth spaces. No value the goldens and docs show nests
// this deep, so what they show is what json.Indent writes.
const MaxIndentDepth = 16

// WriteJSON writes v as encoding/json encodes it, indented by two
// spaces to MaxIndentDepth (IndentJSON), HTML characters unescaped,
// and a newline: json.Encoder with SetIndent("", "  ") byte for byte
// wherever v nests no deeper.
func WriteJSON(w io.Writer, v any) error {
	var compact bytes.Buffer
	enc := json.NewEncoder(&compact)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	return IndentJSON(w, compact.Bytes())
}

// IndentJSON writes the compact JSON src (as encoding/json writes it:
// no space outside strings) indented by two spaces, as json.Indent
// does, down to MaxIndentDepth; deeper values stay compact. Only the
// structural characters outside strings are looked at, so the tokens
// themselves are encoding/json's. Bytes after the value (Encode's
// newline) are copied.
func IndentJSON(w io.Writer, src []byte) error {
	bw := bufio.NewWriter(w)
	depth := 0
	newline := func(d int) {
		bw.WriteByte('\n')
		for range d {
			bw.WriteString("  ")
		}
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch c {
		case '"':
			// Copy the string whole: its end is the first quote not
			// escaped by a backslash.
			j := i + 1
			for j < len(src) && src[j] != '"' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			bw.Write(src[i:min(j+1, len(src))])
			i = j
		case '{', '[':
			bw.WriteByte(c)
			if i+1 < len(src) && (src[i+1] == '}' || src[i+1] == ']') {
				// json.Indent writes an empty object or array as {} or [].
				bw.WriteByte(src[i+1])
				i++
				continue
			}
			depth++
			if depth <= MaxIndentDepth {
				newline(depth)
			}
		case '}', ']':
			if depth <= MaxIndentDepth {
				newline(depth - 1)
			}
			depth--
			bw.WriteByte(c)
		case ',':
			bw.WriteByte(c)
			if depth <= MaxIndentDepth {
				newline(depth)
			}
		case ':':
			bw.WriteByte(c)
			if depth <= MaxIndentDepth {
				bw.WriteByte(' ')
			}
		default:
			bw.WriteByte(c)
		}
	}
	return bw.Flush()
}
