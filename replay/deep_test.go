package replay

import (
	"testing"
	"time"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/model/expr"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
)

// testLanguage is the Language the deep replay fixtures' programs are
// written in: the engine tests' grammar (homeflow's), three devices and
// the entries named in more.
func testLanguage(more ...string) (*language.Server, *language.Language) {
	l := &language.Language{ID: "home/v1", Locator: pilotage.LocatorJSONPointer,
		Grammar: language.Grammar{Call: "call", Args: "with", Branch: "if", Arms: []string{"then", "else"},
			Loop: "for_each", Item: "as", Body: "do", Run: "run", RunArgs: "with", Expressions: "cel", Input: true},
		Limits: language.Limits{Steps: 100, Time: time.Second, Depth: 8, Iterations: 50, Expansion: 2, MemoryBytes: 1 << 20, ProgramBytes: 1 << 16}}
	srv := &language.Server{Languages: []*language.Language{l}}
	for _, id := range append([]string{"sensors.read", "fan.set", "lights.set"}, more...) {
		srv.Catalog = append(srv.Catalog, &language.Entry{CatalogEntry: pilotage.CatalogEntry{ID: id, Kind: "device", Risk: "write"}})
	}
	return srv, l
}

// deepFixture loads an archive's program.json (and input.json) for deep
// replay in testLanguage.
func deepFixture(t *testing.T, prog []byte, a *golden.Archive) *Deep {
	t.Helper()
	srv, l := testLanguage()
	d, err := LoadDeep("program.json", prog, srv, l)
	if err != nil {
		t.Fatal(err)
	}
	if in, ok := a.File("input.json"); ok {
		if d.Input, err = expr.DecodeJSON(in); err != nil {
			t.Fatal(err)
		}
	}
	return d
}
