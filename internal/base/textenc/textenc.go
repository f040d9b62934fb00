// Package textenc tells what the first bytes of a text file say about its
// encoding (a UTF-8 byte order mark, UTF-16 or UTF-32), so PDL and JSON
// readers name an encoding and its fix in the same words instead of a wall
// of "unexpected character" errors.
package textenc

import (
	"bytes"
	"unicode/utf8"
)

// UTF8BOM is U+FEFF, the byte order mark, in UTF-8 (the bytes EF BB BF).
const UTF8BOM = "\ufeff"

// Encoding is what the first bytes of a file show.
type Encoding struct {
	// Name is the encoding as iconv's -f takes it: "UTF-8" for a file
	// that starts with a UTF-8 byte order mark, "" when the first bytes
	// show nothing (a file without a byte order mark whose first
	// character is not ASCII beside NUL bytes is taken to be UTF-8, and
	// any error is found where it is).
	Name string
	// Shows completes "the file …": "is UTF-16 (byte order mark FF FE)".
	Shows string
}

// Sniff reads the encoding off the first bytes of src (four are enough):
// a byte order mark, or, without one, NUL bytes beside the first
// character, which in a PDL or JSON file is ASCII (a letter, a quote,
// a bracket, a comment's '#' or white space) and so is one byte and three
// NULs in UTF-32, one byte and one NUL in UTF-16. UTF-32's marks are
// tested before UTF-16's, which they begin with.
func Sniff(src []byte) Encoding {
	switch {
	case bytes.HasPrefix(src, []byte(UTF8BOM)):
		return Encoding{"UTF-8", "starts with a UTF-8 byte order mark (EF BB BF)"}
	case bytes.HasPrefix(src, []byte{0xff, 0xfe, 0, 0}):
		return Encoding{"UTF-32", "is UTF-32 (byte order mark FF FE 00 00)"}
	case bytes.HasPrefix(src, []byte{0, 0, 0xfe, 0xff}):
		return Encoding{"UTF-32", "is UTF-32 (byte order mark 00 00 FE FF)"}
	case bytes.HasPrefix(src, []byte{0xff, 0xfe}):
		return Encoding{"UTF-16", "is UTF-16 (byte order mark FF FE)"}
	case bytes.HasPrefix(src, []byte{0xfe, 0xff}):
		return Encoding{"UTF-16", "is UTF-16 (byte order mark FE FF)"}
	case len(src) >= 4 && src[0] != 0 && src[1]|src[2]|src[3] == 0:
		return Encoding{"UTF-32LE", "looks like UTF-32 without a byte order mark (its second to fourth bytes are NUL)"}
	case len(src) >= 4 && src[0]|src[1]|src[2] == 0 && src[3] != 0:
		return Encoding{"UTF-32BE", "looks like UTF-32 without a byte order mark (its first three bytes are NUL)"}
	case len(src) >= 2 && src[0] != 0 && src[1] == 0:
		return Encoding{"UTF-16LE", "looks like UTF-16 without a byte order mark (its second byte is NUL)"}
	case len(src) >= 2 && src[0] == 0 && src[1] != 0:
		return Encoding{"UTF-16BE", "looks like UTF-16 without a byte order mark (its first byte is NUL)"}
	}
	return Encoding{}
}

// Foreign reports whether the file is in an encoding other than UTF-8.
func (e Encoding) Foreign() bool { return e.Name != "" && e.Name != "UTF-8" }

// UTF8WithBOM reports whether the file starts with a UTF-8 byte order
// mark.
func (e Encoding) UTF8WithBOM() bool { return e.Name == "UTF-8" }

// Convert says how to make a Foreign file UTF-8.
func (e Encoding) Convert() string {
	return "save it as UTF-8 (your editor's Save As offers the encoding), or convert it: iconv -f " + e.Name + " -t UTF-8"
}

// InvalidUTF8 is the offset of the first byte of src that is not UTF-8,
// or -1 when src is UTF-8 text: the place a reader reports, where
// decoding would read U+FFFD, a character the file does not hold.
func InvalidUTF8(src []byte) int {
	if utf8.Valid(src) {
		return -1
	}
	at := 0
	for {
		r, w := utf8.DecodeRune(src[at:])
		if r == utf8.RuneError && w == 1 {
			return at
		}
		at += w
	}
}
