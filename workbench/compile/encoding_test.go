package compile

import (
	"io/fs"
	"strings"
	"testing"
)

// Files a PDL names in other encodings: a guide saved with a UTF-8 byte
// order mark is published without it (its first line is a heading, its
// size counts no mark); a guide in UTF-16 and a schema with a mark are
// errors that name the encoding, the schema in the words lint uses for a
// JSON file (not a NUL, whose UTF-16 has many), while a NUL in a UTF-8
// guide is an error of its own (testdata/errors/textfiles.txtar has the
// rest).
func TestFileEncodings(t *testing.T) {
	src := []byte(`risk safe readOnly "Reads."
language "a/v1" {
  capabilities {
    guides
    catalog
    validate
  }
  kind device callable "A device."
  guide core "G" level=core file="bom.md"
  guide wide "W" level=reference file="utf16.md"
  guide nul "N" level=reference file="nul.md"
}
entry "x.y" kind=device risk=safe {
  input_schema file="bom.json"
}
`)
	files := map[string][]byte{
		"bom.md":   []byte("\ufeff# G\n\nHello.\n"),
		"utf16.md": {0xff, 0xfe, '#', 0, ' ', 0, 'W', 0, '\n', 0},
		"bom.json": []byte("\ufeff{\"type\": \"object\"}"),
		"nul.md":   []byte("# N\n\nA\x00B\n"),
	}
	read := func(name string) ([]byte, error) {
		if b, ok := files[name]; ok {
			return b, nil
		}
		return nil, fs.ErrNotExist
	}
	res := Source("lang.pdl", src, Options{ReadFile: read})
	var msgs []string
	for _, f := range res.Findings {
		msgs = append(msgs, f.Rule+": "+f.Message)
	}
	for _, want := range []string{
		"pdl-file: guide file utf16.md is UTF-16 (byte order mark FF FE)",
		"pdl-file: control character U+0000 written as itself",
		"pdl-json: input_schema is not valid JSON: the file starts with a UTF-8 byte order mark (EF BB BF), which JSON exchanged between systems must not carry (RFC 8259 §8.1)",
	} {
		if !strings.Contains(strings.Join(msgs, "\n"), want) {
			t.Errorf("no finding %q in\n%s", want, strings.Join(msgs, "\n"))
		}
	}
	if res.Server == nil {
		t.Fatal("no model")
	}
	for _, g := range res.Server.Languages[0].Guides {
		if g.ID == "core" && (g.Body != "# G\n\nHello.\n" || g.SizeBytes != len("# G\n\nHello.\n")) {
			t.Errorf("guide core published as %q, %d bytes: the byte order mark was kept", g.Body, g.SizeBytes)
		}
	}
}
