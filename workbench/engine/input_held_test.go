package engine

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/model/expr"
	"github.com/pilotage-dev/pilotage/internal/testsupport/memtest"
)

// padded is an input for fanProgram whose "pad" is count copies of el.
func padded(el string, count int) string {
	return `{"on": true, "pad": [` + strings.TrimSuffix(strings.Repeat(el+",", count), ",") + `]}`
}

// TestInputHeldBounded: the memory limit charges an input's decoded
// values, not only its JSON bytes (§10.1 memory bound): inputs of small
// values just under the byte limit, which decoded into 40 times their
// size, are refused before decoding with what they would hold; an input
// whose values fit runs, and running it allocates at most twice the
// limit.
func TestInputHeldBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("decodes inputs of megabytes to measure what they hold; run without -short")
	}
	const limit = 4 << 20
	srv := homeServer()
	srv.Languages[0].Limits.MemoryBytes = limit
	e := newEngine(t, srv, "")
	run := func(input string) (*pilotage.ExecuteResponse, uint64) {
		runtime.GC()
		var resp *pilotage.ExecuteResponse
		alloc := memtest.Allocated(func() {
			resp = exec(t, e, "alice", "s1", "home/v1", pilotage.ExecuteRequest{Program: raw(fanProgram), Input: raw(input)})
		})
		return resp, alloc
	}
	for _, el := range []string{"0", "[]", "{}", `{"a":{}}`} {
		n := (limit - 64) / (len(el) + 1)
		input := padded(el, n)
		if len(input) > limit {
			t.Fatalf("%s: the input is %d bytes, over the byte limit", el, len(input))
		}
		held, _ := expr.CheckHeld([]byte(input))
		resp, alloc := run(input)
		want := fmt.Sprintf("input's %d bytes of JSON would take about %d bytes held as values; a Run of this Language holds at most %d (limits memory): send fewer values, or raise limits memory", len(input), held, limit)
		if resp.Outcome.Status != pilotage.StatusValidationError || len(resp.Diagnostics) != 1 ||
			resp.Diagnostics[0].Code != pilotage.CodeInputBinding || resp.Diagnostics[0].Message != want {
			t.Errorf("%d × %s: %+v, want the input_binding error %q", n, el, resp, want)
		}
		// Refused before decoding: what the refusal allocates is the
		// request's own copies, a small multiple of the bytes.
		t.Logf("%d × %s: refusing %d bytes allocated %d", n, el, len(input), alloc)
		if alloc > 4*uint64(len(input)) {
			t.Errorf("%d × %s: refusing %d bytes allocated %d", n, el, len(input), alloc)
		}
	}
	// The worst case accepted: as many one-character values as fit.
	lo, hi := 0, limit
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if held, _ := expr.CheckHeld([]byte(padded("0", mid))); held <= limit {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	resp, alloc := run(padded("0", lo))
	if !resp.Outcome.OK {
		t.Fatalf("%d values that fit: %+v", lo, resp)
	}
	t.Logf("%d one-character values fit (%d bytes); running them allocated %d bytes", lo, len(padded("0", lo)), alloc)
	// The values and their decoder's stack, a slot each, and the rest of
	// the Run: 1.7 times the limit, where encoding/json's decoding, which
	// grows every array by appending and boxes every number's text, took
	// 4.7.
	if alloc > 2*limit {
		t.Errorf("running %d values that fit allocated %d bytes, over twice the limit of %d", lo, alloc, limit)
	}
	if resp, _ := run(padded("0", lo+1)); resp.Outcome.OK {
		t.Errorf("%d values, one more than fit, ran", lo+1)
	}
}

// TestContextHeldBounded: a context within the program limit whose values
// would not fit the memory limit is one context_binding error.
func TestContextHeldBounded(t *testing.T) {
	e := newEngine(t, homeServer(), "")
	ctx := `{"site": "hq", "pad": [` + strings.TrimSuffix(strings.Repeat(`{"a":{}},`, 7000), ",") + `]}`
	held, _ := expr.CheckHeld([]byte(ctx))
	resp, err := e.Validate(bg, alice, "ctx/v1", pilotage.ValidateRequest{Program: raw(`"{\"steps\": [], \"output\": \"1\"}"`), Context: raw(ctx)})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("context's %d bytes of JSON would take about %d bytes held as values; a Run of this Language holds at most 1048576 (limits memory): send fewer values, or raise limits memory", len(ctx), held)
	if len(resp.Diagnostics) != 1 || resp.Diagnostics[0].Code != pilotage.CodeContextBinding || resp.Diagnostics[0].Message != want {
		t.Errorf("diagnostics %+v, want the context_binding error %q", resp.Diagnostics, want)
	}
}
