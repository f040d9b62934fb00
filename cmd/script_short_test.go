package cmd

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// ShortScripts are the scripts of testdata/script that `go test -short`
// runs (TestScripts): every_verb, which runs every verb and the help once,
// end to end, in eighteen pilotage processes of the five hundred the
// whole directory starts. A process costs 20 – 40 ms of CPU, so the whole
// directory would be most of what -short costs; the full suite, which CI
// runs, runs every script, each verb's flags, formats and errors.
var ShortScripts = []string{"every_verb"}

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
