// Package snaptest makes snapshots of any size for the tests of lint and
// of the verbs that read snapshots: the bundled example with a catalog
// of the entries a test needs, wrong in every one or valid, as many as
// a hostile-input test wants.
package snaptest

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// Example is the path of docs/examples/snapshot.json from root, the
// repository's root as a test sees it ("..", or "../.." one level
// deeper): a homeflow/v1 snapshot that lints clean.
func Example(root string) string { return filepath.Join(root, "docs", "examples", "snapshot.json") }

// WithItems is the example snapshot (Example(root)) with the items of
// its one catalog replaced by what items makes of them (the example's
// five entries, decoded), written with the indent of json.MarshalIndent,
// or compact when indent is "".
func WithItems(t testing.TB, root, indent string, items func(example []any) []any) []byte {
	t.Helper()
	src, err := os.ReadFile(Example(root))
	if err != nil {
		t.Fatal(err)
	}
	var snap map[string]any
	if err := json.Unmarshal(src, &snap); err != nil {
		t.Fatal(err)
	}
	catalog := snap["catalog"].(map[string]any)["homeflow/v1"].(map[string]any)
	catalog["items"] = items(catalog["items"].([]any))
	var out []byte
	if indent == "" {
		out, err = json.Marshal(snap)
	} else {
		out, err = json.MarshalIndent(snap, "", indent)
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Unknown is n catalog entries of distinct ids, each with a kind and a
// risk the example's closed-sets guide does not list and without the
// required risk_hints: three findings an entry, of three rules, in 67
// bytes (pilotage lint of 250,000 of them once took 40 bytes a byte).
func Unknown(n int) []any {
	items := make([]any, n)
	for i := range items {
		items[i] = map[string]any{"id": "x" + strconv.Itoa(i), "kind": "nokind", "risk": "norisk", "name": "n"}
	}
	return items
}

// Valid is n catalog entries that lint clean, copies of the example's
// with distinct ids.
func Valid(example []any, n int) []any {
	items := make([]any, n)
	for i := range items {
		e := maps.Clone(example[i%len(example)].(map[string]any))
		e["id"] = e["id"].(string) + "." + strconv.Itoa(i)
		items[i] = e
	}
	return items
}
