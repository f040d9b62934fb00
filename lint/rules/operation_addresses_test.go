package rules

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
	"github.com/pilotage-dev/pilotage/lint"
)

// TestOperationAddressesMessages keeps the messages and hints of every
// failing fixture of operation-addresses in its NAME.messages section (go
// test -update rewrites them). The .want lines say where the rule fires;
// these say what it tells the reader: both Languages of a prefix
// collision, the operation that holds a shared tool first, and the name
// binding.md expects.
func TestOperationAddressesMessages(t *testing.T) { fixtureMessages(t, operationAddresses) }

// fixtureMessages checks, for every failing fixture NAME.json of r's
// archive, what r says of it against the archive's NAME.messages section
// (go test -update rewrites them): each finding's pointer, severity,
// message and hint, which the .want lines do not pin.
func fixtureMessages(t *testing.T, r *lint.Rule) {
	a := golden.ReadArchive(t, filepath.Join("testdata", r.ID+".txtar"))
	checked := 0
	for _, f := range a.Files {
		name, ok := strings.CutSuffix(f.Name, ".json")
		if !ok || !strings.HasPrefix(name, "fail") {
			continue
		}
		rep, err := lint.Run([]*lint.Rule{r}, []*lint.Input{{File: f.Name, Src: f.Data}}, lint.Config{})
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, fd := range rep.Findings {
			fmt.Fprintf(&b, "%s %s\n  %s\n  hint: %s\n", fd.Pointer, fd.Severity, fd.Message, fd.Hint)
		}
		a.Check(t, name+".messages", []byte(b.String()))
		checked++
	}
	if checked == 0 {
		t.Fatal("no failing fixture in the archive")
	}
}
