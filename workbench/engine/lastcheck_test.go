package engine

import (
	"context"
	"encoding/json"
	"testing"

	pilotage "github.com/pilotage-dev/pilotage"
)

// TestCheckRemembersTheLastProgram: a program checked again, against the
// same catalog, Language and principal, is the check remembered (validate
// then execute, and pilotage test's cases naming one program file, check
// it once); a typed check does not answer a Run, which needs its
// expressions prepared; another program, context, principal or catalog
// is checked anew; and a caller's changes to the diagnostics it got do
// not reach the next.
func TestCheckRemembersTheLastProgram(t *testing.T) {
	e := newEngine(t, homeServer(), "")
	prog := raw(`{"steps": [{"id": "t", "call": "sensors.read", "with": {"room": "'attic'"}}], "output": "steps.t.output.temp"}`)
	check := func(principal string, p json.RawMessage, run bool) *checked {
		t.Helper()
		st, l, err := e.language("home/v1")
		if err != nil {
			t.Fatal(err)
		}
		ck, err := e.check(context.Background(), e.view(st, l, principal), p, nil, inline, run)
		if err != nil {
			t.Fatal(err)
		}
		return ck
	}
	typed := check("alice", prog, false)
	if typed.prog.Steps[0].Args[0].Expr.X != nil {
		t.Error("validate's check prepared an expression to run")
	}
	planned := check("alice", prog, true)
	if planned.prog == typed.prog || planned.prog.Steps[0].Args[0].Expr.X == nil {
		t.Fatal("a typed check answered a Run")
	}
	for _, run := range []bool{false, true} {
		if check("alice", prog, run).prog != planned.prog {
			t.Errorf("the same program checked again (run %v)", run)
		}
	}
	if check("bob", prog, true).prog == planned.prog {
		t.Error("another principal's check was the remembered one")
	}
	if check("alice", raw(string(prog)+" "), true).prog == planned.prog {
		t.Error("another program's check was the remembered one")
	}
	bad := raw(`{"steps": [{"id": "t", "call": "nothing.here", "with": {}}]}`)
	got := check("alice", bad, false)
	if len(got.diags) == 0 {
		t.Fatal("no diagnostic for an unknown entry")
	}
	msg := got.diags[0].Message
	got.diags[0].Message = "changed by the caller"
	if again := check("alice", bad, false); again.diags[0].Message != msg {
		t.Errorf("the remembered diagnostics changed with a caller's: %q", again.diags[0].Message)
	}
	before := check("alice", prog, true)
	if check("alice", prog, true).prog != before.prog {
		t.Fatal("the same program checked again")
	}
	if err := e.RemoveEntry("lock.open"); err != nil {
		t.Fatal(err)
	}
	if check("alice", prog, true).prog == before.prog {
		t.Error("a check before a catalog change was the remembered one")
	}
}

// An engine made with CheckOnce, as a command that sends one request
// makes it, remembers no check: it would hold the program's step model
// while the command writes the plan.
func TestCheckOnceRemembersNothing(t *testing.T) {
	e := newEngineWith(t, homeServer(), Options{CheckOnce: true})
	st, l, err := e.language("home/v1")
	if err != nil {
		t.Fatal(err)
	}
	prog := raw(`{"steps": [{"id": "t", "call": "sensors.read", "with": {"room": "'attic'"}}], "output": "steps.t.output.temp"}`)
	first, err := e.check(context.Background(), e.view(st, l, "alice"), prog, nil, inline, true)
	if err != nil {
		t.Fatal(err)
	}
	if e.last.ck != nil {
		t.Error("the engine remembered the check")
	}
	again, err := e.check(context.Background(), e.view(st, l, "alice"), prog, nil, inline, true)
	if err != nil {
		t.Fatal(err)
	}
	if again.prog == first.prog || !pilotage.Valid(again.diags) {
		t.Errorf("the same program's check was remembered, or not valid: %v", again.diags)
	}
}
