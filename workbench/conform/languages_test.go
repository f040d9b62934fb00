package conform

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A manifest listing thousands of Languages (a 16 MiB result can list
// tens of thousands) would cost learn, lookup and probe requests for
// each, hours of them. Conform reads the first --max-languages only: the
// same requests as for the manifest of the first one alone, one
// read-bounds finding at the discover answer's /languages, and no lint
// finding about the Languages it left out of the snapshot.
func TestManyLanguagesAreBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("checks a server of 5000 Languages; run without -short")
	}
	clean := check(t, inMemory(t, newFake(t, cleanSnapshot).server()), Options{})
	if len(clean.Findings) != 0 {
		t.Fatalf("the clean fake has findings:\n%s", findings(clean))
	}
	f := newFake(t, cleanSnapshot)
	f.manifest = withCopies(t, f.manifest, 5000)
	dir := t.TempDir()
	start := time.Now()
	rep := check(t, inMemory(t, f.server()), Options{Dir: dir, MaxLanguages: 1})
	// The request count below is what shows the bound; the clock only
	// catches a run of hours, with room for the race detector on a
	// loaded machine (42 s seen there, 2 s otherwise).
	if d := time.Since(start); d > 2*time.Minute {
		t.Errorf("conform took %v on a manifest of 5001 Languages", d)
	}
	want := "tools/call pilotage_discover: warning: 5001 Languages; only the first 1 (--max-languages) were read and checked, and snapshot.json lists only them; raise --max-languages to check the other 5000 [read-bounds §6.3]\n  at /structuredContent/languages"
	if got := findings(rep); len(rep.Findings) != 1 || !strings.Contains(got, want) {
		t.Errorf("want the one finding %q, got:\n%s", want, got)
	}
	if got, want := rep.Summary.Checked["requests"], clean.Summary.Checked["requests"]; got != want {
		t.Errorf("%d requests, want %d: those of the first Language alone", got, want)
	}
	var snap struct {
		Manifest struct {
			Languages []struct {
				ID string `json:"id"`
			} `json:"languages"`
		} `json:"manifest"`
	}
	src, err := os.ReadFile(filepath.Join(dir, "snapshot.json"))
	if err == nil {
		err = json.Unmarshal(src, &snap)
	}
	if err != nil || len(snap.Manifest.Languages) != 1 || snap.Manifest.Languages[0].ID != "homeflow/v1" {
		t.Errorf("the snapshot's manifest lists %v (%v), want homeflow/v1 alone", snap.Manifest.Languages, err)
	}
}

// Without MaxLanguages, the bound is DefaultMaxLanguages.
func TestDefaultLanguageBound(t *testing.T) {
	if testing.Short() {
		t.Skip("checks a server of 101 Languages; run without -short")
	}
	f := newFake(t, cleanSnapshot)
	f.manifest = withCopies(t, f.manifest, DefaultMaxLanguages)
	got := findings(check(t, inMemory(t, f.server()), Options{}))
	if want := "101 Languages; only the first 100 (--max-languages)"; !strings.Contains(got, want) {
		t.Errorf("want %q in:\n%s", want, got)
	}
}

// A --language past the bound is refused before anything is read: its
// guides and catalog would not be in the snapshot the program is checked
// against.
func TestProgramLanguagePastTheBound(t *testing.T) {
	f := newFake(t, cleanSnapshot)
	f.manifest = withCopies(t, f.manifest, 3)
	_, err := Check(t.Context(), inMemory(t, f.server()), Options{Dir: t.TempDir(), MaxLanguages: 2,
		Program: evening(t), LanguageID: "copy/3"})
	if want := `--language "copy/3" is Language 4 of the manifest, past the first 2 conform reads; raise --max-languages`; err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %s", err, want)
	}
}

// withCopies appends n copies of the manifest's first Language, with ids
// copy/1 to copy/n and the same tools.
func withCopies(t *testing.T, manifest json.RawMessage, n int) json.RawMessage {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(manifest, &m); err != nil {
		t.Fatal(err)
	}
	langs := m["languages"].([]any)
	for i := 1; i <= n; i++ {
		l := maps.Clone(langs[0].(map[string]any))
		l["id"] = "copy/" + strconv.Itoa(i)
		langs = append(langs, l)
	}
	m["languages"] = langs
	raw, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// firstLanguages keeps the server's bytes and cuts only the manifest's
// own languages arrays.
func TestFirstLanguages(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		n    int
		want string
	}{
		{`{"a": 1, "languages": [{"id": "x"}, {"id": "y"}, {"id": "z"}], "b": [1]}`, 2,
			`{"a": 1, "languages": [{"id": "x"}, {"id": "y"}], "b": [1]}`},
		{"{\n  \"languages\": [\n    1,\n    2\n  ]\n}", 1, "{\n  \"languages\": [\n    1]\n}"},
		{`{"languages": [1, 2]}`, 2, `{"languages": [1, 2]}`},
		{`{"server": {"languages": [1, 2, 3]}, "languages": [1, 2, 3]}`, 1,
			`{"server": {"languages": [1, 2, 3]}, "languages": [1]}`},
		{`{"languages": [1, 2, 3], "languages": [4, 5]}`, 1, `{"languages": [1], "languages": [4]}`},
		{`{"languages": [1], "languages": [4, 5]}`, 1, `{"languages": [1], "languages": [4]}`},
		{`[1, 2]`, 1, `[1, 2]`},
		{`{"languages": {"x": 1}}`, 1, `{"languages": {"x": 1}}`},
	} {
		if got := string(firstLanguages(json.RawMessage(tc.raw), tc.n)); got != tc.want {
			t.Errorf("firstLanguages(%s, %d) = %s, want %s", tc.raw, tc.n, got, tc.want)
		}
	}
}

// A message listing a server's Languages names ten and counts the rest.
func TestSomeOf(t *testing.T) {
	ids := []string{}
	for i := range 12 {
		ids = append(ids, fmt.Sprintf("l%d/1", i))
	}
	if got, want := someOf(ids[:2]), "l0/1, l1/1"; got != want {
		t.Errorf("someOf(2) = %q, want %q", got, want)
	}
	if got := someOf(ids); !strings.HasSuffix(got, "l9/1 and 2 more") || strings.Contains(got, "l10/1") {
		t.Errorf("someOf(12) = %q", got)
	}
}
