package replay

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
)

// TestDecodeNodeLikeUnmarshal: on snapshots replay can read, decodeNode
// fills snapshotFile exactly as json.Unmarshal does.
func TestDecodeNodeLikeUnmarshal(t *testing.T) {
	for _, file := range []string{
		filepath.Join("..", "docs", "examples", "snapshot.json"),
		filepath.Join("..", "docs", "examples", "broken-snapshot.json"),
	} {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var want, got snapshotFile
		if err := json.Unmarshal(src, &want); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		doc, err := jsonpos.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		if p := decodeNode(doc, doc.Root, nil, reflect.ValueOf(&got).Elem()); p != nil {
			t.Fatalf("%s: %s", file, p.msg)
		}
		if !reflect.DeepEqual(got, want) || len(got.Manifest.Languages) == 0 || len(got.Guides) == 0 {
			t.Errorf("%s: decodeNode and json.Unmarshal differ:\n%+v\n%+v", file, got, want)
		}
	}
}

// TestLoadSnapshotPlacesProblems: a snapshot replay cannot read is an
// error at the line:col and JSON Pointer of the value at fault, in the
// project's words, never encoding/json's "cannot unmarshal … into Go
// struct field".
func TestLoadSnapshotPlacesProblems(t *testing.T) {
	const lang = `{"id": "demo/v1", "trace_level": "summary"}`
	for _, c := range []struct{ name, src, want string }{
		{"syntax", "{\"snapshot\": \"pilotage/1.1\",\n \"manifest\": {,}}",
			`snap.json:2:15: malformed JSON: unexpected ','; expected a member name in double quotes`},
		{"not an object", `["pilotage/1.1"]`,
			`snap.json:1:1: not a snapshot replay can read: the document is an array, not an object`},
		{"trace_level a number", "{\"snapshot\": \"pilotage/1.1\",\n \"manifest\": {\"languages\": [" + lang + ",\n  {\"id\": \"b/v1\", \"trace_level\": 5}]}}",
			`snap.json:3:33: not a snapshot replay can read: /manifest/languages/1/trace_level is a number, not a string`},
		{"languages an object", `{"snapshot": "pilotage/1.1", "manifest": {"languages": {"id": "demo/v1"}}}`,
			`snap.json:1:56: not a snapshot replay can read: /manifest/languages is an object, not an array`},
		{"guide topics a string", `{"snapshot": "pilotage/1.1", "manifest": {"languages": [` + lang + `]}, "guides": {"demo/v1": [{"id": "g", "topics": "closed-sets"}]}}`,
			`snap.json:1:149: not a snapshot replay can read: /guides/demo~1v1/0/topics is a string, not an array`},
		{"capability null", `{"snapshot": "pilotage/1.1", "manifest": {"capabilities": {"execute": null}, "languages": [` + lang + `]}}`,
			`snap.json:1:71: not a snapshot replay can read: /manifest/capabilities/execute: capability value must be true, false or an object of booleans`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := LoadSnapshot("snap.json", []byte(c.src), "")
			if err == nil || !strings.HasPrefix(err.Error(), c.want+" (hint: ") {
				t.Errorf("got  %v\nwant %s (hint: …)", err, c.want)
			}
		})
	}
}

// TestLoadSnapshotClipsLanguageIDs: choosing a Language the snapshot
// lacks names the asked id and the snapshot's ids clipped, and at most
// 20 of them; 500 Languages of 100 KB ids were listed whole, 50 MB in
// one error. 40 Languages of 8 KB ids show both bounds at under 1% of
// the cost.
func TestLoadSnapshotClipsLanguageIDs(t *testing.T) {
	var langs []string
	for i := range 40 {
		langs = append(langs, fmt.Sprintf(`{"id": "%s%d/v1", "trace_level": "summary"}`, strings.Repeat("x", 8<<10), i))
	}
	src := `{"snapshot": "pilotage/1.1", "manifest": {"languages": [` + strings.Join(langs, ",") + `]}}`
	for _, id := range []string{"", "other/v1", strings.Repeat("y", 64<<10)} {
		_, err := LoadSnapshot("snap.json", []byte(src), id)
		if err == nil || len(err.Error()) > 4000 || !strings.Contains(err.Error(), "and 20 more") {
			t.Errorf("--language %.20q: error of %d bytes, want under 4000 ending with the count of the rest: %.300v", id, len(fmt.Sprint(err)), err)
		}
	}
}
