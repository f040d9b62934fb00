package engine

import (
	"encoding/json"
	"strings"
	"testing"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/model/language"
)

func lookup(t *testing.T, e *Engine, principal, lang string, req pilotage.LookupRequest) any {
	t.Helper()
	out, err := e.Lookup(bg, callerOf(principal, "s"), lang, req)
	if err != nil {
		t.Fatalf("lookup %+v: %v", req, err)
	}
	return out
}

// TestListPagination walks every page with a small limit and gets each
// visible entry exactly once.
func TestListPagination(t *testing.T) {
	e := newEngine(t, homeServer(), t.TempDir())
	var ids []string
	var cursor *string // the first page is asked for without one
	for pages := 0; ; pages++ {
		if pages > 10 {
			t.Fatal("pagination does not end")
		}
		l := lookup(t, e, "alice", "home/v1", pilotage.LookupRequest{Verb: pilotage.VerbList, Limit: new(3), Cursor: cursor}).(*pilotage.ListResponse)
		if len(l.Items) > 3 || l.CatalogVersion == "" {
			t.Fatalf("page %d: %+v", pages, l)
		}
		for _, it := range l.Items {
			ids = append(ids, it.ID)
		}
		if l.NextCursor == "" {
			break
		}
		cursor = &l.NextCursor
	}
	want := "fan.set lights.set lock.open prog.nightly@1 rooms sensors.read slow.op weather.fetch"
	if got := strings.Join(ids, " "); got != want {
		t.Errorf("listed %s\nwant    %s", got, want)
	}
	first := lookup(t, e, "alice", "home/v1", pilotage.LookupRequest{Verb: pilotage.VerbList, Limit: new(1)}).(*pilotage.ListResponse)
	_, err := e.Lookup(bg, alice, "home/v1", pilotage.LookupRequest{Verb: pilotage.VerbList, Kind: new("sensor"), Cursor: new(first.NextCursor)})
	reqErr(t, err, pilotage.ErrInvalidRequest)
	_, err = e.Lookup(bg, alice, "home/v1", pilotage.LookupRequest{Verb: pilotage.VerbList, Cursor: new("!!")})
	reqErr(t, err, pilotage.ErrInvalidRequest)
	_, err = e.Lookup(bg, alice, "home/v1", pilotage.LookupRequest{Verb: pilotage.VerbList, Limit: new(-1)})
	reqErr(t, err, pilotage.ErrInvalidRequest)
}

func TestListFilters(t *testing.T) {
	e := newEngine(t, homeServer(), t.TempDir())
	ids := func(principal, lang string, req pilotage.LookupRequest) string {
		req.Verb = pilotage.VerbList
		var out []string
		for _, it := range lookup(t, e, principal, lang, req).(*pilotage.ListResponse).Items {
			out = append(out, it.ID)
		}
		return strings.Join(out, " ")
	}
	for _, c := range []struct {
		who  string
		req  pilotage.LookupRequest
		want string
	}{
		{"alice", pilotage.LookupRequest{Kind: new("sensor")}, "sensors.read slow.op weather.fetch"},
		{"alice", pilotage.LookupRequest{Q: new("THE lock")}, "lock.open"},
		{"alice", pilotage.LookupRequest{Q: new("set")}, "fan.set lights.set"},
		{"bob", pilotage.LookupRequest{Kind: new("actuator")}, "fan.set lights.set"},
		{"mallory", pilotage.LookupRequest{}, ""},
	} {
		if got := ids(c.who, "home/v1", c.req); got != c.want {
			t.Errorf("%s %+v: got %q want %q", c.who, c.req, got, c.want)
		}
	}
	_, err := e.Lookup(bg, alice, "ctx/v1", pilotage.LookupRequest{Verb: pilotage.VerbList, Q: new("fan")})
	reqErr(t, err, pilotage.ErrUnsupported)
	_, err = e.Lookup(bg, alice, "ctx/v1", pilotage.LookupRequest{Verb: pilotage.VerbChangedSince, CatalogVersion: new("x")})
	reqErr(t, err, pilotage.ErrUnsupported)
	re := func() *pilotage.RequestError {
		_, err := e.Lookup(bg, alice, "home/v1", pilotage.LookupRequest{Verb: pilotage.VerbChangedSince, CatalogVersion: new("cv-never")})
		return reqErr(t, err, pilotage.ErrUnknownBaseline)
	}()
	if re.CatalogVersion == "" {
		t.Error("unknown_baseline must carry the current catalog_version")
	}
	_, err = e.Lookup(bg, alice, "home/v1", pilotage.LookupRequest{Verb: "search"})
	reqErr(t, err, pilotage.ErrInvalidRequest)
}

// TestPrincipalsCannotTellNames: for bob, an entry he may not see and an
// entry that does not exist produce byte-identical responses in every
// operation, catalog_version included (§10.3).
func TestPrincipalsCannotTellNames(t *testing.T) {
	with := newEngine(t, homeServer(), t.TempDir())
	srv := homeServer()
	for i, en := range srv.Catalog {
		if en.ID == "lock.open" {
			srv.Catalog = append(srv.Catalog[:i], srv.Catalog[i+1:]...)
			break
		}
	}
	without := newEngine(t, srv, t.TempDir())
	prog := raw(`{"steps": [{"id": "a", "call": "lock.open", "with": {}}, {"id": "b", "call": "lock.opne", "with": {}}]}`)
	ops := map[string]func(e *Engine) (any, error){
		"validate": func(e *Engine) (any, error) {
			return e.Validate(bg, callerOf("bob", "s"), "home/v1", pilotage.ValidateRequest{Program: prog})
		},
		"execute": func(e *Engine) (any, error) {
			r, err := e.Execute(bg, callerOf("bob", "s"), "home/v1", pilotage.ExecuteRequest{Program: prog})
			if r != nil {
				r.RunID = ""
			}
			return r, err
		},
		"get": func(e *Engine) (any, error) {
			return e.Lookup(bg, callerOf("bob", "s"), "home/v1", pilotage.LookupRequest{Verb: pilotage.VerbGet, ID: new("lock.open")})
		},
		"list": func(e *Engine) (any, error) {
			return e.Lookup(bg, callerOf("bob", "s"), "home/v1", pilotage.LookupRequest{Verb: pilotage.VerbList, Q: new("lock")})
		},
		"program_ref": func(e *Engine) (any, error) {
			return e.Execute(bg, callerOf("bob", "s"), "home/v1", pilotage.ExecuteRequest{ProgramRef: new("lock.open")})
		},
	}
	for name, op := range ops {
		a, errA := op(with)
		b, errB := op(without)
		ja, _ := json.Marshal([]any{a, errA})
		jb, _ := json.Marshal([]any{b, errB})
		if string(ja) != string(jb) {
			t.Errorf("%s: bob can tell lock.open exists:\n%s\n%s", name, ja, jb)
		}
	}
	// alice, who may see it, gets a different answer.
	va, _ := with.Validate(bg, alice, "home/v1", pilotage.ValidateRequest{Program: prog})
	if len(va.Diagnostics) != 1 || va.Diagnostics[0].Hint != "did you mean lock.open?" {
		t.Errorf("alice: %+v", va.Diagnostics)
	}
}

func TestLearn(t *testing.T) {
	e := newEngine(t, homeServer(), t.TempDir())
	idx, err := e.Learn(bg, alice, "home/v1", pilotage.LearnRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range idx.(*pilotage.LearnIndex).Guides {
		if g.Body != nil || g.SizeBytes == 0 {
			t.Errorf("index entry %+v", g)
		}
	}
	topic, err := e.Learn(bg, alice, "home/v1", pilotage.LearnRequest{ID: new("core"), Topic: new("steps")})
	if err != nil {
		t.Fatal(err)
	}
	g := topic.(*pilotage.LearnFetch).Guide
	if want := "## Steps\n\nA program is a list of steps.\n\n### Calls\n\nUse call.\n\n"; *g.Body != want || g.SizeBytes != len(want) {
		t.Errorf("topic body %q", *g.Body)
	}
	cs, _ := e.Learn(bg, alice, "home/v1", pilotage.LearnRequest{ID: new("closed-sets"), Topic: new("closed-sets")})
	if !strings.HasPrefix(*cs.(*pilotage.LearnFetch).Guide.Body, "# Closed sets") {
		t.Error("the closed-sets topic must return the whole guide")
	}
	_, err = e.Learn(bg, alice, "home/v1", pilotage.LearnRequest{ID: new("core"), Topic: new("nope")})
	reqErr(t, err, pilotage.ErrNotFound)
	_, err = e.Learn(bg, alice, "home/v1", pilotage.LearnRequest{ID: new("nope")})
	reqErr(t, err, pilotage.ErrNotFound)
	_, err = e.Learn(bg, alice, "ctx/v1", pilotage.LearnRequest{ID: new("core"), Topic: new("steps")})
	reqErr(t, err, pilotage.ErrUnsupported)
}

// TestDiscover: the manifest names the binding's tools and declares a
// duration retention only when a data directory can keep it.
func TestDiscover(t *testing.T) {
	for _, c := range []struct {
		dir       string
		retention string
	}{{t.TempDir(), "P7D"}, {"", pilotage.RetentionSession}} {
		e := newEngine(t, homeServer(), c.dir)
		m, err := e.Discover(bg)
		if err != nil {
			t.Fatal(err)
		}
		assertSchema(t, pilotage.SchemaManifest, m)
		h := m.Languages[0]
		if h.Retention != c.retention || h.Guides != "home_v1_learn" || h.Catalog != "home_v1_lookup" ||
			h.Loop != (pilotage.Loop{Validate: "home_v1_validate", Execute: "home_v1_execute", Trace: "home_v1_trace"}) {
			t.Errorf("dir %q: %+v", c.dir, h)
		}
		if b := m.Languages[2]; b.Catalog != "bare_v1_lookup" || b.Loop.Trace != "" {
			t.Errorf("bare/v1: %+v", b)
		}
	}
}

// TestNoCatalogNoNames: a Language that does not declare catalog resolves
// no names, so its programs cannot depend on server state (§3.2).
func TestNoCatalogNoNames(t *testing.T) {
	srv := homeServer()
	pure := *srv.Languages[2]
	pure.ID = "pure/v1"
	pure.Capabilities = caps(pilotage.CapGuides, pilotage.On(), pilotage.CapValidate, pilotage.On(), pilotage.CapExecute, pilotage.On())
	srv.Languages = append(srv.Languages, &pure)
	e := newEngine(t, srv, t.TempDir())
	v, err := e.Validate(bg, alice, "pure/v1", pilotage.ValidateRequest{Program: raw(fanProgram)})
	if err != nil || v.Valid || v.Diagnostics[0].Code != pilotage.CodeUnknownName || v.CatalogVersion != "" {
		t.Errorf("%+v %v", v, err)
	}
	// Nor promoted programs: program_ref is unsupported (§6.5.1,
	// TestProgramRefWithoutCatalog).
	_, err = e.Execute(bg, alice, "pure/v1", pilotage.ExecuteRequest{ProgramRef: new("prog.nightly@1")})
	reqErr(t, err, pilotage.ErrUnsupported)
	_, err = e.Lookup(bg, alice, "pure/v1", pilotage.LookupRequest{Verb: pilotage.VerbList})
	reqErr(t, err, pilotage.ErrUnsupported)
}

// TestPrincipalPatternsMatchAsCompiled: the compiler accepts sees
// patterns as path.Match reads them ("?" one character, "[gs]" a class,
// as docs/pdl.md says), so the engine must read them the same way; a
// matcher that took only "*" showed dana an empty catalog for patterns
// the compiler had checked against real entries (§10.3).
func TestPrincipalPatternsMatchAsCompiled(t *testing.T) {
	srv := homeServer()
	srv.Principals = append(srv.Principals, &language.Principal{Name: "dana", Sees: []string{"fan.[gs]et", "sensors.rea?", "lock.*"}})
	e := newEngine(t, srv, t.TempDir())
	l := lookup(t, e, "dana", "home/v1", pilotage.LookupRequest{Verb: pilotage.VerbList}).(*pilotage.ListResponse)
	var ids []string
	for _, it := range l.Items {
		ids = append(ids, it.ID)
	}
	if got, want := strings.Join(ids, " "), "fan.set lock.open sensors.read"; got != want {
		t.Fatalf("dana sees %q, want %q", got, want)
	}
}
