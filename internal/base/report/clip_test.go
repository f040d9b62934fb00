package report

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClip(t *testing.T) {
	short := strings.Repeat("é", 60) // 120 bytes: as it is
	if got := Clip(short); got != short {
		t.Errorf("Clip of 120 bytes = %q", got)
	}
	long := "a" + strings.Repeat("é", 100) // 201 bytes, 117 is inside a character
	got := Clip(long)
	if len(got) > ClipBytes || !utf8.ValidString(got) || !strings.HasSuffix(got, "…") || !strings.HasPrefix(long, strings.TrimSuffix(got, "…")) {
		t.Errorf("Clip = %q (%d bytes)", got, len(got))
	}
	if got := Clip([]byte(long)); got != Clip(long) {
		t.Errorf("Clip of bytes = %q, of the string %q", got, Clip(long))
	}
	if got := Quote(long); got != `"`+Clip(long)+`"` {
		t.Errorf("Quote = %s", got)
	}
}

func TestClips(t *testing.T) {
	names := []string{"a", "b"}
	if got := Clips(names); &got[0] != &names[0] {
		t.Errorf("Clips copied a list that needs nothing")
	}
	long := []string{"a", strings.Repeat("x", 500)}
	if got := Clips(long); got[0] != "a" || got[1] != Clip(long[1]) || long[1] != strings.Repeat("x", 500) {
		t.Errorf("Clips = %q, input now %.10q", got, long)
	}
	many := make([]string, 25)
	for i := range many {
		many[i] = strings.Repeat("n", i+1)
	}
	got := Clips(many)
	if len(got) != ClipNames+1 || got[ClipNames] != "and 5 more" || got[ClipNames-1] != many[ClipNames-1] {
		t.Errorf("Clips of 25 names = %q", got)
	}
}

func TestClipPointer(t *testing.T) {
	if p := "/catalog/homeflow~1v1/items/3/id"; ClipPointer(p) != p {
		t.Errorf("ClipPointer changed %q", p)
	}
	key := strings.Repeat("v", 1<<20)
	got := ClipPointer("/catalog/" + key + "/items/3/id")
	if want := "/catalog/" + Clip(key) + "/items/3/id"; got != want {
		t.Errorf("ClipPointer = %q, want %q", got, want)
	}
}

// QuoteName quotes a name without Go's escapes, its newline written
// \x0a, clipped as Clip clips it.
func TestQuoteName(t *testing.T) {
	for in, want := range map[string]string{
		"lamp.read":              `"lamp.read"`,
		"lamp\tread":             "\"lamp\tread\"",
		"a\nb":                   `"a\x0ab"`,
		`say "hi"`:               `"say \"hi\""`,
		`a\x09b`:                 `"a\\x09b"`,
		strings.Repeat("x", 200): `"` + strings.Repeat("x", 117) + `…"`,
	} {
		if got := QuoteName(in); got != want {
			t.Errorf("QuoteName(%q) = %q, want %q", in, got, want)
		}
	}
	if got := OneLine(QuoteName("lamp\tread")); got != `"lamp\x09read"` {
		t.Errorf("shown in a message as %s", got)
	}
}
