package basetest_test

import (
	"testing"
	"unicode/utf16"

	"github.com/pilotage-dev/pilotage/internal/base/textenc"
)

// utf16le and friends encode s as the encodings Sniff names, so the cases
// below are real encoded text, not bytes picked to match the switch.
func utf16le(s string) []byte {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return b
}

func utf16be(s string) []byte {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u>>8), byte(u))
	}
	return b
}

func utf32le(s string) []byte {
	var b []byte
	for _, r := range s {
		b = append(b, byte(r), byte(r>>8), byte(r>>16), byte(r>>24))
	}
	return b
}

func utf32be(s string) []byte {
	var b []byte
	for _, r := range s {
		b = append(b, byte(r>>24), byte(r>>16), byte(r>>8), byte(r))
	}
	return b
}

func TestTextencSniff(t *testing.T) {
	const pdl, json = "language \"a/v1\" {}\n", "{\"a\": 1}"
	tests := []struct {
		name  string
		src   []byte
		enc   string
		shows string
	}{
		{"utf8 pdl", []byte(pdl), "", ""},
		{"utf8 json", []byte(json), "", ""},
		{"utf8 non-ascii first", []byte("é{}"), "", ""},
		{"empty", nil, "", ""},
		{"one byte", []byte("{"), "", ""},
		{"utf8 bom", []byte(textenc.UTF8BOM + json), "UTF-8", "starts with a UTF-8 byte order mark (EF BB BF)"},
		{"utf16le bom", utf16le(textenc.UTF8BOM + pdl), "UTF-16", "is UTF-16 (byte order mark FF FE)"},
		{"utf16be bom", utf16be(textenc.UTF8BOM + json), "UTF-16", "is UTF-16 (byte order mark FE FF)"},
		{"utf32le bom", utf32le(textenc.UTF8BOM + json), "UTF-32", "is UTF-32 (byte order mark FF FE 00 00)"},
		{"utf32be bom", utf32be(textenc.UTF8BOM + pdl), "UTF-32", "is UTF-32 (byte order mark 00 00 FE FF)"},
		{"utf16le", utf16le(json), "UTF-16LE", "looks like UTF-16 without a byte order mark (its second byte is NUL)"},
		{"utf16be", utf16be(pdl), "UTF-16BE", "looks like UTF-16 without a byte order mark (its first byte is NUL)"},
		{"utf32le", utf32le(json), "UTF-32LE", "looks like UTF-32 without a byte order mark (its second to fourth bytes are NUL)"},
		{"utf32be", utf32be(pdl), "UTF-32BE", "looks like UTF-32 without a byte order mark (its first three bytes are NUL)"},
		// Cut short, UTF-32 without a mark reads as UTF-16: still not UTF-8.
		{"utf32le cut", utf32le(json)[:3], "UTF-16LE", "looks like UTF-16 without a byte order mark (its second byte is NUL)"},
		{"utf16le one char", utf16le("{"), "UTF-16LE", "looks like UTF-16 without a byte order mark (its second byte is NUL)"},
	}
	for _, tt := range tests {
		got := textenc.Sniff(tt.src)
		if got.Name != tt.enc || got.Shows != tt.shows {
			t.Errorf("%s: Sniff(% x) = %+v, want %q %q", tt.name, tt.src[:min(len(tt.src), 6)], got, tt.enc, tt.shows)
		}
		if got.Foreign() != (tt.enc != "" && tt.enc != "UTF-8") || got.UTF8WithBOM() != (tt.enc == "UTF-8") {
			t.Errorf("%s: Foreign %v, UTF8WithBOM %v for %q", tt.name, got.Foreign(), got.UTF8WithBOM(), tt.enc)
		}
	}
	if got, want := textenc.Sniff(utf16le(json)).Convert(), "save it as UTF-8 (your editor's Save As offers the encoding), or convert it: iconv -f UTF-16LE -t UTF-8"; got != want {
		t.Errorf("Convert() = %q, want %q", got, want)
	}
}

// TestTextencInvalidUTF8: the first byte that does not start a character, after
// characters of one to four bytes, a lone continuation byte, a cut-off
// sequence and a surrogate (which UTF-8 may not encode) included.
func TestTextencInvalidUTF8(t *testing.T) {
	for src, want := range map[string]int{
		"":                   -1,
		"ascii":              -1,
		"é中😀":                -1,
		"ab\xff":             2,
		"é\x80x":             2,
		"caf\xc3":            3,
		"中\xe4\xb8":          3,
		"x\xed\xa0\x80":      1,
		"\xc3(":              0,
		"ok\n😀 \xf0\x9f\x98": 8,
	} {
		if got := textenc.InvalidUTF8([]byte(src)); got != want {
			t.Errorf("InvalidUTF8(%q) = %d, want %d", src, got, want)
		}
	}
}
