package basetest_test

import (
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/base/suggest"

	"github.com/pilotage-dev/pilotage/internal/testsupport/memtest"
)

func TestSuggestClosest(t *testing.T) {
	set := []string{"json-pointer", "text-range"}
	for _, c := range []struct{ in, want string }{
		{"json_pointer", "json-pointer"}, // '_' and '-' alike
		{"JSON-Pointer", "json-pointer"}, // case ignored
		{"text-rang", "text-range"},      // one deletion
		{"txt-rnge", "text-range"},       // two edits in ten runes
		{"pointer", ""},                  // too far
		{"", ""},
	} {
		if got := suggest.Closest(c.in, set); got != c.want {
			t.Errorf("Closest(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := suggest.Closest("x", nil); got != "" {
		t.Errorf("Closest over an empty set = %q", got)
	}
	// One edit is always allowed, even for short values.
	if got := suggest.Closest("ful", []string{"summary", "full"}); got != "full" {
		t.Errorf("Closest(ful) = %q", got)
	}
	// Neighbours swapped is one edit; one-letter names are never typos.
	if got := suggest.Closest("titel", []string{"title", "trace"}); got != "title" {
		t.Errorf("Closest(titel) = %q", got)
	}
	if got := suggest.Closest("b", []string{"a"}); got != "" {
		t.Errorf("Closest(b, [a]) = %q, want none", got)
	}
}

func TestSuggestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"kitten", "sitting", 3}, {"héllo", "hello", 1}, {"same", "same", 0},
		{"raed", "read", 1}, {"ab", "ba", 1}, {"abc", "ca", 3},
	} {
		if got := suggest.Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
	// Long input is cut at 64 runes, so a megabyte costs no more than 64.
	long := strings.Repeat("x", 1<<20)
	if got := suggest.Distance(long, "y"); got != 64 {
		t.Errorf("Distance(1 MiB, y) = %d, want 64", got)
	}
}

// TestSuggestLongWordIsCheap: a 16 MB word (one PDL token the size of the
// file) is judged from its first 64 runes. Before, each member of the
// set cost a lowered copy, a replaced copy and a rune slice of the whole
// word: 200 MB of garbage for lint of one such line (issue 13 item 8).
func TestSuggestLongWordIsCheap(t *testing.T) {
	word := strings.Repeat("a", 16<<20)
	set := []string{"language", "import", "entry", "guide", "principal"}
	var got string
	n := memtest.Allocated(func() { got = suggest.Closest(word, set) })
	if got != "" {
		t.Errorf("Closest(16 MB word) = %q, want none", got)
	}
	if n > 64<<10 {
		t.Errorf("Closest of a 16 MB word allocated %d bytes, want at most 64 KiB", n)
	}
}

func FuzzSuggestClosest(f *testing.F) {
	f.Add("json_pointer", "json-pointer")
	f.Add("\xff\xfe", "")
	f.Fuzz(func(t *testing.T, s, v string) {
		got := suggest.Closest(s, []string{v, "summary"})
		if got != "" && got != v && got != "summary" {
			t.Fatalf("Closest returned %q, not a member of the set", got)
		}
		if d := suggest.Distance(s, v); d < 0 || d > suggest.MaxRunes {
			t.Fatalf("Distance out of range: %d", d)
		}
	})
}

// TestSuggestLongMemberNotOffered: a member longer than what Distance compares
// is never offered, though its first 64 runes are the word's: a
// Language's megabyte name would be offered whole by every finding that
// misspelt it.
func TestSuggestLongMemberNotOffered(t *testing.T) {
	long := strings.Repeat("a", 1<<20)
	if got := suggest.Closest(strings.Repeat("a", 70), []string{long}); got != "" {
		t.Errorf("Closest offered a member of %d bytes", len(got))
	}
	if got := suggest.Closest("sensors.reed", []string{long, "sensors.read"}); got != "sensors.read" {
		t.Errorf("Closest = %.80q, want sensors.read", got)
	}
}

// TestSuggestDidYouMean words the hint callers wrap: the near member, never the
// word itself, and nothing when none is near. A member's newline is
// written \x0a: a hint's newlines are its lines.
func TestSuggestDidYouMean(t *testing.T) {
	set := []string{"text", "json", "sarif", "lamp\nread"}
	for got, want := range map[string]string{
		"jsno":       "did you mean json?",
		"Text":       "did you mean text?",
		"text":       "",
		"yaml":       "",
		"sarfi":      "did you mean sarif?",
		"lamp\nreaf": `did you mean lamp\x0aread?`,
	} {
		if h := suggest.DidYouMean(got, set); h != want {
			t.Errorf("DidYouMean(%q) = %q, want %q", got, h, want)
		}
	}
}
