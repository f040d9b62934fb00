package cmd_test

import (
	"github.com/pilotage-dev/pilotage/internal/config"
	"strings"
	"testing"
)

// KeyDoc finds the key under an offset, nested in mappings, lists and
// flow mappings (columns in code points past an emoji), and its
// description in the schema, following $refs; values, rule IDs, text
// that is not YAML and offsets off the text have none.
func TestConfigKeyDoc(t *testing.T) {
	src := "# 😀\nrules:\n  core-guide-size: off\nsuppress:\n  - files: [\"x/**\"]\n    rules: [json-syntax]\n    reason: fixtures\ndefaults: {baseline: \"😀.json\", strict: true}\nlanguages:\n  - {files: [\"p/**\"], lang: a.pdl}\n"
	for _, tc := range []struct {
		at, path, has string
	}{
		{"rules:", "rules", "Severity of a rule by its ID"},
		{"reason:", "suppress.reason", "Why the findings are acceptable"},
		{"rules: [json", "suppress.rules", "The IDs of the rules"},
		{"strict:", "defaults.strict", "exit 1 on warnings too"},
		{"lang:", "languages.lang", "The PDL file that defines the Language"},
		{"languages:", "languages", "The PDL file defining the Language of program files"},
		{"core-guide-size", "", ""},
		{"off", "", ""},
		{"😀.json", "", ""},
	} {
		off := strings.Index(src, tc.at) + 2
		top, path, doc, ok := config.KeyDoc([]byte(src), off)
		if path != tc.path || ok != (tc.path != "") || !strings.Contains(doc, tc.has) || ok && top != strings.Split(tc.path, ".")[0] {
			t.Errorf("at %q: %q %q %q %v", tc.at, top, path, doc, ok)
		}
	}
	for _, bad := range []struct {
		src string
		off int
	}{{"rules: [\n", 2}, {"rules: {}\n", -1}, {"rules: {}\n", 99}, {strings.Repeat("[", 100) + "x" + strings.Repeat("]", 100), 50}} {
		if _, _, _, ok := config.KeyDoc([]byte(bad.src), bad.off); ok {
			t.Errorf("%q at %d has a key", bad.src, bad.off)
		}
	}
}
