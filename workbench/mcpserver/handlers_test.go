package mcpserver

import (
	"context"
	"encoding/json"
	"testing"
	"unsafe"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/model/binding"
	"github.com/pilotage-dev/pilotage/workbench/service"
)

// validateRecorder is the fake service, keeping the last validate request.
type validateRecorder struct {
	*fakeService
	got pilotage.ValidateRequest
}

func (v *validateRecorder) Validate(ctx context.Context, c service.Caller, lang string, req pilotage.ValidateRequest) (*pilotage.ValidateResponse, error) {
	v.got = req
	return v.fakeService.Validate(ctx, c, lang, req)
}

// TestValidateProgramIsTheArguments holds validate's program and context
// to views of the call's arguments, not copies: the program is otherwise
// held twice while it is checked (docs/performance.md, "Hostile
// inputs": the serve validate of 36,000 steps).
func TestValidateProgramIsTheArguments(t *testing.T) {
	rec := &validateRecorder{fakeService: newFake()}
	s, err := New(context.Background(), rec, Options{Principal: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	manifest, err := rec.Discover(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	def, err := s.defs[string(binding.Validate)].forLanguage(manifest.Languages[0])
	if err != nil {
		t.Fatal(err)
	}
	args := json.RawMessage(`{"program": {"steps": ["lights.on"]}, "context": {"room": "hall"}}`)
	res, err := s.opHandler("demo/v1", binding.Validate, def)(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Arguments: args}})
	if err != nil || res.IsError {
		t.Fatalf("validate: %v, %+v", err, res)
	}
	within := func(name string, view, want json.RawMessage) {
		t.Helper()
		if string(view) != string(want) {
			t.Errorf("%s %s, want %s", name, view, want)
		}
		start, end := uintptr(unsafe.Pointer(unsafe.SliceData(args))), uintptr(unsafe.Pointer(unsafe.SliceData(args)))+uintptr(len(args))
		if at := uintptr(unsafe.Pointer(unsafe.SliceData(view))); at < start || at >= end {
			t.Errorf("%s is a copy, not a view of the arguments", name)
		}
	}
	within("program", rec.got.Program, json.RawMessage(`{"steps": ["lights.on"]}`))
	within("context", rec.got.Context, json.RawMessage(`{"room": "hall"}`))
}
