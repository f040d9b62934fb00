package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/model/binding"
	"github.com/pilotage-dev/pilotage/workbench/service"
)

// fakeService is a small Service that exercises every channel of the
// binding: programs are {"steps": ["entry.id", ...]}; a name the caller
// cannot see is unknown_name; "fail.me" makes a Run end partial; runs are
// kept per Session. It records what the binding passed in, so tests can
// check principals and Sessions. The real engine's semantics are tested
// end to end in cmd.
type fakeService struct {
	mu        sync.Mutex
	languages []string
	// sees maps a principal to the entry ids it may see.
	sees    map[string][]string
	runs    map[string]map[string]*pilotage.ExecuteResponse // session → run_id → response
	ended   []string
	callers []service.Caller
	next    int
}

func newFake() *fakeService {
	return &fakeService{
		languages: []string{"demo/v1"},
		sees: map[string][]string{
			"alice": {"lights.on", "fail.me"},
			"bob":   {"doors.open"},
		},
		runs: map[string]map[string]*pilotage.ExecuteResponse{},
	}
}

func (f *fakeService) record(c service.Caller) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.callers = append(f.callers, c)
}

func (f *fakeService) Discover(ctx context.Context) (*pilotage.Manifest, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m := &pilotage.Manifest{Pilotage: "1.1", Server: &pilotage.ServerInfo{Name: "fake"},
		Capabilities: pilotage.Capabilities{
			pilotage.CapGuides: pilotage.On(), pilotage.CapCatalog: pilotage.On(), pilotage.CapValidate: pilotage.On(),
			pilotage.CapExecute: pilotage.On(), pilotage.CapTraceFetch: pilotage.On(),
		}}
	for _, id := range f.languages {
		m.Languages = append(m.Languages, pilotage.LanguageEntry{
			ID: id, Guides: binding.Tool(id, binding.Learn), Catalog: binding.Tool(id, binding.Lookup),
			Loop:    pilotage.Loop{Validate: binding.Tool(id, binding.Validate), Execute: binding.Tool(id, binding.Execute), Trace: binding.Tool(id, binding.Trace)},
			Locator: pilotage.LocatorJSONPointer, ExecutionMode: pilotage.ModeImmediate, TraceLevel: pilotage.LevelFull, Retention: pilotage.RetentionSession,
		})
	}
	return m, nil
}

const coreBody = "# Demo\n\nA program is {\"steps\": [names]}.\n"

func (f *fakeService) Learn(ctx context.Context, c service.Caller, lang string, req pilotage.LearnRequest) (any, error) {
	f.record(c)
	g := pilotage.Guide{ID: "core", Title: "Demo", Level: pilotage.GuideCore, Version: "1", SizeBytes: len(coreBody)}
	switch {
	case req.ID == nil:
		return &pilotage.LearnIndex{Guides: []pilotage.Guide{g}}, nil
	case *req.ID == "core":
		body := coreBody
		g.Body = &body
		return &pilotage.LearnFetch{Guide: g}, nil
	}
	return nil, &pilotage.RequestError{Kind: pilotage.ErrNotFound, Message: fmt.Sprintf("no guide %q", *req.ID)}
}

func (f *fakeService) visible(c service.Caller) []string { return f.sees[c.Principal] }

func (f *fakeService) version(c service.Caller) string {
	return "v:" + strings.Join(f.visible(c), ",")
}

func (f *fakeService) Lookup(ctx context.Context, c service.Caller, lang string, req pilotage.LookupRequest) (any, error) {
	f.record(c)
	if req.Verb == pilotage.VerbGet {
		want := ""
		if req.ID != nil {
			want = *req.ID
		}
		for _, id := range f.visible(c) {
			if id == want {
				return &pilotage.GetResponse{Entry: entry(id), CatalogVersion: f.version(c)}, nil
			}
		}
		return nil, &pilotage.RequestError{Kind: pilotage.ErrNotFound, Message: "no entry " + want, CatalogVersion: f.version(c)}
	}
	resp := &pilotage.ListResponse{Items: []pilotage.CatalogEntry{}, CatalogVersion: f.version(c)}
	for _, id := range f.visible(c) {
		resp.Items = append(resp.Items, entry(id))
	}
	return resp, nil
}

func entry(id string) pilotage.CatalogEntry {
	return pilotage.CatalogEntry{ID: id, Kind: "action", Risk: "write", RiskHints: pilotage.RiskHints{}}
}

func (f *fakeService) check(c service.Caller, program json.RawMessage) []pilotage.Diagnostic {
	var p struct {
		Steps []string `json:"steps"`
	}
	if err := json.Unmarshal(program, &p); err != nil {
		return []pilotage.Diagnostic{{Code: pilotage.CodeSyntax, Severity: pilotage.SeverityError, Message: err.Error(), Path: pilotage.PointerPath("")}}
	}
	diags := []pilotage.Diagnostic{}
	for i, name := range p.Steps {
		found := false
		for _, id := range f.visible(c) {
			found = found || id == name
		}
		if !found {
			diags = append(diags, pilotage.Diagnostic{Code: pilotage.CodeUnknownName, Severity: pilotage.SeverityError,
				Message: fmt.Sprintf("no entry %q", name), Path: pilotage.PointerPath(fmt.Sprintf("/steps/%d", i))})
		}
	}
	return diags
}

func (f *fakeService) Validate(ctx context.Context, c service.Caller, lang string, req pilotage.ValidateRequest) (*pilotage.ValidateResponse, error) {
	f.record(c)
	diags := f.check(c, req.Program)
	return &pilotage.ValidateResponse{Valid: pilotage.Valid(diags), Diagnostics: diags, CatalogVersion: f.version(c)}, nil
}

func (f *fakeService) Execute(ctx context.Context, c service.Caller, lang string, req pilotage.ExecuteRequest) (*pilotage.ExecuteResponse, error) {
	f.record(c)
	if (req.Program == nil) == (req.ProgramRef == nil) {
		return nil, &pilotage.RequestError{Kind: pilotage.ErrInvalidRequest, Message: "exactly one of program and program_ref"}
	}
	f.mu.Lock()
	f.next++
	id := fmt.Sprintf("run-%d", f.next)
	f.mu.Unlock()
	if diags := f.check(c, req.Program); !pilotage.Valid(diags) {
		return &pilotage.ExecuteResponse{RunID: id, Outcome: pilotage.Outcome{Status: pilotage.StatusValidationError}, Diagnostics: diags}, nil
	}
	out := pilotage.Outcome{OK: true, Status: pilotage.StatusSuccess}
	if strings.Contains(string(req.Program), "fail.me") {
		out = pilotage.Outcome{Status: pilotage.StatusPartial, Error: "fail.me failed"}
	}
	resp := &pilotage.ExecuteResponse{RunID: id, Outcome: out,
		Trace: &pilotage.Trace{RunID: id, Level: pilotage.LevelFull, Outcome: out, Steps: []pilotage.TraceStep{}}}
	f.mu.Lock()
	if f.runs[c.Session] == nil {
		f.runs[c.Session] = map[string]*pilotage.ExecuteResponse{}
	}
	f.runs[c.Session][id] = resp
	f.mu.Unlock()
	return resp, nil
}

func (f *fakeService) Trace(ctx context.Context, c service.Caller, lang string, req pilotage.TraceFetchRequest) (*pilotage.TraceFetchResponse, error) {
	f.record(c)
	f.mu.Lock()
	defer f.mu.Unlock()
	r, ok := f.runs[c.Session][req.RunID]
	if !ok {
		return nil, &pilotage.RequestError{Kind: pilotage.ErrNotFound, Message: "no run " + req.RunID}
	}
	return &pilotage.TraceFetchResponse{RunID: r.RunID, Outcome: r.Outcome, Trace: r.Trace}, nil
}

func (f *fakeService) EndSession(session string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.runs, session)
	f.ended = append(f.ended, session)
}

func (f *fakeService) endedSessions() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.ended...)
}

// sessionCallers returns the recorded callers of MCP requests, leaving out
// the server's own startup calls, which belong to no Session.
func (f *fakeService) sessionCallers() []service.Caller {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []service.Caller
	for _, c := range f.callers {
		if c.Session != "" {
			out = append(out, c)
		}
	}
	return out
}
