package engine

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"
	"time"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
)

// programSeeds are the programs of the validate golden cases.
func programSeeds(f *testing.F) [][]byte {
	return golden.Sections(f, filepath.Join("testdata", "validate", "*.txtar"), func(name string) bool { return name == "program" })
}

// FuzzValidate feeds arbitrary bytes to validate as a program: the answer
// is a response with diagnostics or a request error, never a panic, an
// internal error or a hang.
func FuzzValidate(f *testing.F) {
	for _, program := range programSeeds(f) {
		f.Add(program, false)
	}
	f.Add([]byte(`{"steps": [{"id": "x", "for_each": "[[[[[]]]]]", "as": "y", "do": [{"id": "z", "if": "y.map(a, a) == []", "then": [], "else": []}]}], "output": "x"}`), true)
	e := newEngine(f, homeServer(), "")
	// textRange sends the bytes as the text of a text-range Language's
	// program (ctx/v1), whose diagnostics carry line/column paths.
	f.Fuzz(func(t *testing.T, program []byte, textRange bool) {
		start := time.Now()
		lang, req := "home/v1", pilotage.ValidateRequest{Program: program}
		if textRange {
			s, _ := json.Marshal(string(program))
			lang, req = "ctx/v1", pilotage.ValidateRequest{Program: s, Context: raw(`{"site": "x"}`)}
		}
		resp, err := e.Validate(bg, alice, lang, req)
		if took := time.Since(start); took > 10*time.Second {
			t.Errorf("validation took %s", took)
		}
		var re *pilotage.RequestError
		switch {
		case err != nil && !errors.As(err, &re):
			t.Fatalf("internal error: %v", err)
		case err != nil && re.Kind == pilotage.ErrInternal:
			t.Fatalf("internal request error: %v", err)
		case err == nil && resp.Valid != pilotage.Valid(resp.Diagnostics):
			t.Fatalf("valid is %v with diagnostics %+v", resp.Valid, resp.Diagnostics)
		case err == nil && resp.Valid && resp.Plan == nil && lang == "home/v1":
			t.Fatal("a valid program without a plan")
		}
		if err == nil {
			for _, d := range resp.Diagnostics {
				if d.Range != nil && (d.Range.Start < 0 || d.Range.End < d.Range.Start) {
					t.Fatalf("bad range %+v", d)
				}
				if tr := d.Path.Text; textRange && d.Code != pilotage.CodeContextBinding && (tr == nil || tr.Start.Line < 1 || tr.Start.Column < 1 ||
					tr.End.Line < tr.Start.Line || tr.End.Line == tr.Start.Line && tr.End.Column < tr.Start.Column) {
					t.Fatalf("bad text range %+v", d)
				}
			}
		}
	})
}

// FuzzExecute runs arbitrary programs: every Run ends within the
// Language's limits with an outcome from the closed sets.
func FuzzExecute(f *testing.F) {
	for _, program := range programSeeds(f) {
		f.Add(program, []byte(`{"room": "attic", "rooms": ["a", "cellar"]}`))
	}
	srv := homeServer()
	srv.Languages[0].Limits.Time = 500 * time.Millisecond
	e := newEngine(f, srv, "")
	statuses := map[string]bool{"success": true, "partial": true, "validation_error": true, "catalog_drift": true, "device_error": true}
	f.Fuzz(func(t *testing.T, program, input []byte) {
		start := time.Now()
		resp, err := e.Execute(bg, alice, "home/v1", pilotage.ExecuteRequest{Program: program, Input: input, Store: boolp(false)})
		if took := time.Since(start); took > 10*time.Second {
			t.Errorf("the Run took %s", took)
		}
		var re *pilotage.RequestError
		if err != nil {
			if !errors.As(err, &re) || re.Kind == pilotage.ErrInternal {
				t.Fatalf("internal error: %v", err)
			}
			return
		}
		if !statuses[resp.Outcome.Status] || resp.Outcome.OK != (resp.Outcome.Status == pilotage.StatusSuccess) {
			t.Fatalf("outcome %+v", resp.Outcome)
		}
	})
}
