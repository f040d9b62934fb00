package engine

import (
	"encoding/json"
	"fmt"
	"regexp"
	"testing"
	"time"

	pilotage "github.com/pilotage-dev/pilotage"
)

// exprValue matches every CEL expression of program50 (the values of
// room, on and output).
var exprValue = regexp.MustCompile(`"(room|on|output)": "([^"]*)"`)

// salted rewrites every expression E of p as [E][0 * salt]: the same
// type, value and references, but text no cache has seen.
func salted(p json.RawMessage, salt int) json.RawMessage {
	return exprValue.ReplaceAll(p, fmt.Appendf(nil, `"$1": "[$2][0 * %d]"`, salt))
}

// BenchmarkWarmVsCold measures, in one run, the first check of a
// program's expressions (cold: every iteration salts them anew) against
// the same program checked again (warm), for validate and execute, and
// reports warm/cold as the ratio to compare across machines.
func BenchmarkWarmVsCold(b *testing.B) {
	for _, op := range []string{"validate", "execute"} {
		b.Run(op, func(b *testing.B) {
			e := newEngine(b, homeServer(), "")
			run := func(p json.RawMessage) {
				if op == "validate" {
					resp, err := e.Validate(bg, alice, "home/v1", pilotage.ValidateRequest{Program: p})
					if err != nil || !resp.Valid {
						b.Fatal(resp, err)
					}
					return
				}
				resp, err := e.Execute(bg, alice, "home/v1", pilotage.ExecuteRequest{Program: p, Input: raw(`{"rooms": ["attic", "hall"]}`), Store: boolp(false)})
				if err != nil || !resp.Outcome.OK || len(resp.Trace.Steps) != 50 {
					b.Fatal(resp, err)
				}
			}
			warmProg := program50()
			run(warmProg)
			var cold, warm time.Duration
			salt := 0
			for b.Loop() {
				salt++
				p := salted(warmProg, salt)
				t0 := time.Now()
				run(p)
				t1 := time.Now()
				run(warmProg)
				cold, warm = cold+t1.Sub(t0), warm+time.Since(t1)
			}
			n := float64(salt)
			b.ReportMetric(float64(cold.Microseconds())/n, "cold-µs/op")
			b.ReportMetric(float64(warm.Microseconds())/n, "warm-µs/op")
			b.ReportMetric(float64(warm)/float64(cold), "warm/cold")
		})
	}
}

// The salted program must really be new text with the same meaning.
func TestSaltedProgramIsEquivalent(t *testing.T) {
	e := newEngine(t, homeServer(), "")
	p, q := program50(), salted(program50(), 7)
	if n := len(exprValue.FindAll(p, -1)); n < 50 || string(p) == string(q) {
		t.Fatalf("salting rewrote nothing (%d expressions)", n)
	}
	in := raw(`{"rooms": ["attic", "hall"]}`)
	a, err := e.Execute(bg, alice, "home/v1", pilotage.ExecuteRequest{Program: p, Input: in, Store: boolp(false)})
	if err != nil {
		t.Fatal(err)
	}
	c, err := e.Execute(bg, alice, "home/v1", pilotage.ExecuteRequest{Program: q, Input: in, Store: boolp(false)})
	if err != nil {
		t.Fatal(err)
	}
	if !a.Outcome.OK || string(a.Output) != string(c.Output) || len(c.Trace.Steps) != len(a.Trace.Steps) {
		t.Errorf("outputs differ: %s, %s", a.Output, c.Output)
	}
}
