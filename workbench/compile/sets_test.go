package compile

import (
	"slices"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/base/closedsets"
	"github.com/pilotage-dev/pilotage/workbench/pdl"
)

// A Language's kinds and risk levels, which resolveIn reads an entry at
// a time and a did-you-mean lists, are the file's each once and then its
// own: its sets start with the file's, so they are not added again.
func TestKindsAndRisksOnce(t *testing.T) {
	src := []byte(`kind device callable "A device."
kind sensor callable "A sensor."
risk safe readOnly "Reads."
risk write "Writes."
language "a/v1" {
  title "A"
  guide core "Core" level=core {
    body """
      # Core

      Call things.
      """
  }
  kind devise callable "Own."
  risk wipe "Wipes."
}
entry "x.y" kind=devic risk=saf {
  description "X."
}
`)
	f, findings := pdl.Stream("s.pdl", src, true)
	if f == nil || len(findings) > 0 {
		t.Fatalf("parse: %v", findings)
	}
	c := newCompiler(Options{Shared: true}, &Result{Sources: map[string][]byte{"s.pdl": src}})
	c.name, c.tree = f.Name, f
	c.file(f)
	if len(c.langs) != 1 {
		t.Fatalf("%d Languages, want 1", len(c.langs))
	}
	ls := c.langs[0]
	kinds := namesOf(c.kindsOf(ls), func(k closedsets.Kind) string { return k.Kind })
	risks := namesOf(c.risksOf(ls), func(r closedsets.Risk) string { return r.Risk })
	for _, got := range [][]string{kinds, risks} {
		if sorted := slices.Sorted(slices.Values(got)); len(slices.Compact(sorted)) != len(got) {
			t.Errorf("did-you-mean list %q names a value twice", got)
		}
	}
	for _, want := range []string{"device", "sensor", "devise"} {
		if !slices.Contains(kinds, want) {
			t.Errorf("kinds %q lack %s", kinds, want)
		}
	}
	for _, want := range []string{"safe", "write", "wipe"} {
		if !slices.Contains(risks, want) {
			t.Errorf("risks %q lack %s", risks, want)
		}
	}
}
