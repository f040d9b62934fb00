package inputs

import (
	"path/filepath"
	"slices"
	"strings"
)

// What each verb takes from a directory or glob. Each leaves out what
// another verb reads, saying which, and JSON objects that are no
// Pilotage document (JSON Schemas, program inputs); a file it cannot
// tell (malformed JSON, not an object) is taken, so the verb reports it
// rather than pass a broken file over unseen.
var (
	// Lint takes manifests, snapshots and PDL files.
	Lint = Picker{Exts: []string{".json", ".pdl"}, Take: taking(Manifest, Snapshot),
		Looking: "manifests, snapshots or PDL files (*.json, *.pdl)"}
	// Replay takes traces, execute responses and trace-fetch responses.
	Replay = Picker{Exts: []string{".json"}, Take: taking(Trace),
		Looking: "trace files (*.json holding a trace, an execute or a trace-fetch response)"}
	// Test takes the case files of tests/ directories (pilotage test):
	// a corpus lives beside its PDL.
	Test = Picker{Exts: []string{".yaml", ".yml"}, Take: inTests,
		Looking: "test case files (tests/*.yaml)"}
	// PDL takes PDL files (fmt, build).
	PDL = Picker{Exts: []string{".pdl"}, Looking: "PDL files (*.pdl)"}
)

// readBy says which verb reads a kind of document, for the reason a walk
// gives when it skips one.
var readBy = map[Kind]string{
	Manifest: ": pilotage lint checks it",
	Snapshot: ": pilotage lint checks it",
	Trace:    ": pilotage replay checks it",
	Plan:     ": pilotage replay reads it with --plan",
	Program:  ": pilotage validate checks it",
}

// taking is a Picker.Take that takes PDL files, the JSON documents of
// the kinds given and those it cannot tell.
func taking(kinds ...Kind) func(string) (bool, string) {
	return func(name string) (bool, string) {
		if strings.HasSuffix(name, ".pdl") {
			return true, ""
		}
		k := SniffFile(name)
		if k == Unknown || slices.Contains(kinds, k) {
			return true, ""
		}
		return false, k.String() + readBy[k]
	}
}

// inTests takes a YAML file of a tests/ directory; another (pilotage.yaml,
// a CI workflow) is no case file. The directory is named as it is, not
// as the path gives it: todo.yaml found from within todo/tests is in
// "." and ../tests/todo.yaml's directory is "tests" either way.
func inTests(name string) (bool, string) {
	dir := filepath.Dir(name)
	if b := filepath.Base(dir); b == "." || b == ".." {
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
	}
	if filepath.Base(dir) == "tests" {
		return true, ""
	}
	return false, "not in a tests/ directory"
}
