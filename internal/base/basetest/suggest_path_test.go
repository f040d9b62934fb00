package basetest_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/base/suggest"
)

func TestSuggestPath(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"schemas/room.json", "schemas/context.json", "guides/core.md"} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ name, want string }{
		{"schemas/rom.json", "schemas/room.json"},
		{"guide/core.md", "guides/core.md"},
		// Both parts misspelt.
		{"schema/contxt.json", "schemas/context.json"},
		{"./schemas/rom.json", "schemas/room.json"},
		// Nothing near, or nothing misspelt.
		{"elsewhere/out.json", ""},
		{"schemas/unrelated.json", ""},
		{"schemas/room.json", ""},
	} {
		if got := suggest.Path(dir, tc.name); got != tc.want {
			t.Errorf("Path(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}
