package cmd

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// ShortScripts are the scripts of testdata/script that `go test -short`
// runs (TestScripts): every verb and its help at least once, end to end,
// with lint's output in each format, about seventy pilotage processes of
// the five hundred the whole directory starts. Every process pays 15 – 20
// ms of CPU before main (cel-go's and jsonschema's tables), so the whole
// directory is most of what -short would cost; the full suite, which CI
// runs, runs every script.
var ShortScripts = []string{
	"config_show",
	"conform_deep", // conform of a served Language, then deep replay of its Run
	"init_basic",   // init, then lint, build, run, fmt and test on what it wrote
	"lint_formats",
	"lsp_stdio",
	"plan_picture",
	"replay_findings",
	"validate_text", // a text program through validate, plan, run, replay and serve
	"version_basic",
	"version_help",
}

// scriptVerb matches a pilotage command in a script and captures its
// verb or first flag (help, --help).
var scriptVerb = regexp.MustCompile(`(?m)^\s*(?:\[[^\]]*\]\s*)?!?\s*(?:exec\s+)?pilotage(?:-status)?\s+(\S+)`)

// TestShortScriptsRunEveryVerb holds ShortScripts to its promise: every
// verb of the root command, and its help, is run by a script that
// `go test -short` runs, so a verb added without one fails here.
func TestShortScriptsRunEveryVerb(t *testing.T) {
	ran := map[string]bool{}
	for _, name := range ShortScripts {
		data, err := os.ReadFile(filepath.Join("testdata", "script", name+".txtar"))
		if err != nil {
			t.Fatalf("ShortScripts names %s: %v", name, err)
		}
		for _, m := range scriptVerb.FindAllSubmatch(data, -1) {
			ran[string(m[1])] = true
		}
	}
	for _, c := range newRoot().Commands() {
		if c.Name() != "completion" && !ran[c.Name()] {
			t.Errorf("no script of ShortScripts runs pilotage %s; add one, so go test -short runs the verb", c.Name())
		}
	}
	if !ran["--help"] {
		t.Error("no script of ShortScripts runs pilotage --help")
	}
}
