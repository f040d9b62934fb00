package basetest_test

import (
	"strings"
	"testing"
	"time"

	"github.com/pilotage-dev/pilotage/internal/base/pathglob"
)

func TestPathglobMatch(t *testing.T) {
	for _, c := range []struct {
		pat, name string
		want      bool
	}{
		{"out/**", "out/snapshot.json", true},
		{"out/**", "out/a/b/c.json", true},
		{"out/**", "out", true},
		{"out/", "out/x.json", true},
		{"out/**", "outer/x.json", false},
		{"**/*.json", "a.json", true},
		{"**/*.json", "a/b/c.json", true},
		{"**/*.json", "a/b/c.pdl", false},
		{"langs/**/*.pdl", "langs/homeflow/homeflow.pdl", true},
		{"langs/**/*.pdl", "langs/x.pdl", true},
		{"langs/**/*.pdl", "docs/x.pdl", false},
		{"*.json", "a/b.json", false},
		{"a/*/c", "a/b/c", true},
		{"a/*/c", "a/b/d/c", false},
		{"fixtures/bad-?.json", "fixtures/bad-1.json", true},
		{"[", "[", false},
	} {
		if got := pathglob.Match(c.pat, c.name); got != c.want {
			t.Errorf("Match(%q, %q) = %v, want %v", c.pat, c.name, got, c.want)
		}
	}
}

// Many "**" against a long path stay quick: a backtracking matcher
// takes exponential time here.
func TestPathglobMatchManyStars(t *testing.T) {
	pat := strings.Repeat("**/a/", 30) + "b"
	name := strings.Repeat("a/", 200) + "c"
	start := time.Now()
	if pathglob.Match(pat, name) {
		t.Fatal("matched a name that does not end in b")
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("took %v", d)
	}
}

func TestPathglobValidate(t *testing.T) {
	if err := pathglob.Validate("a/[b"); err == nil {
		t.Error("an unclosed [ passed")
	}
	if err := pathglob.Validate("a/**/*.json"); err != nil {
		t.Error(err)
	}
}

func TestPathglobBase(t *testing.T) {
	for pat, want := range map[string]string{
		"langs/**/*.pdl": "langs", "*.json": ".", "a/b/c.json": "a/b", "/tmp/*/x": "/tmp", "a/b*/c": "a",
	} {
		if got := pathglob.Base(pat); got != want {
			t.Errorf("Base(%q) = %q, want %q", pat, got, want)
		}
	}
}
