package picture

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/internal/model/syntax"
	"github.com/pilotage-dev/pilotage/workbench/compile"
	"github.com/pilotage-dev/pilotage/workbench/engine"
	"github.com/pilotage-dev/pilotage/workbench/service"
)

// example is a program of langs/ with the Language it is written in.
type example struct {
	name, pdl, principal, program, input string
}

// examples are the langs/ programs the pictures are drawn from.
var examples = []example{
	{"homeflow-evening", "../../langs/homeflow/homeflow.pdl", "owner", "../../langs/homeflow/programs/evening.json", "../../langs/homeflow/programs/evening.input.json"},
	{"notes-digest", "../../langs/notes/notes.pdl", "", "../../langs/notes/programs/digest.txt", "../../langs/notes/programs/digest.input.json"},
}

// session is a compiled Language with an engine, as pilotage plan and
// run use them.
type session struct {
	lang *language.Language
	eng  *engine.Engine
	src  []byte
	prog []byte // the program as the request carries it
}

func open(t testing.TB, ex example) *session {
	t.Helper()
	pdl, err := os.ReadFile(ex.pdl)
	if err != nil {
		t.Fatal(err)
	}
	res := compile.Source(ex.pdl, pdl, compile.Options{Dir: filepath.Dir(ex.pdl)})
	if !res.OK() {
		t.Fatalf("%s: %v", ex.pdl, res.Findings)
	}
	eng, err := engine.New(res.Server, engine.Options{IDKey: []byte("pictures"), CheckTraces: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	src, err := os.ReadFile(ex.program)
	if err != nil {
		t.Fatal(err)
	}
	s := &session{lang: res.Server.Languages[0], eng: eng, src: src}
	s.prog, _ = syntax.Wire(s.lang.Locator, src)
	return s
}

func (s *session) caller(ex example) service.Caller {
	return service.Caller{Principal: ex.principal, Session: "test"}
}

// plan validates the program and returns its plan.
func (s *session) plan(t testing.TB, ex example) *pilotage.Plan {
	t.Helper()
	resp, err := s.eng.Validate(context.Background(), s.caller(ex), s.lang.ID, pilotage.ValidateRequest{Program: s.prog})
	if err != nil {
		t.Fatal(err)
	}
	if !resp.Valid || resp.Plan == nil {
		t.Fatalf("%s: not valid or no plan: %+v", ex.program, resp.Diagnostics)
	}
	return resp.Plan
}
