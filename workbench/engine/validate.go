package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/sync/semaphore"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/base/lru"
	"github.com/pilotage-dev/pilotage/internal/base/schemacost"
	"github.com/pilotage-dev/pilotage/internal/model/expr"
	"github.com/pilotage-dev/pilotage/internal/model/program"
	"github.com/pilotage-dev/pilotage/internal/model/syntax"
	"github.com/pilotage-dev/pilotage/workbench/service"
)

// Validate checks a program against the caller's visible catalog (§6.4).
// It has no side effects beyond remembering the catalog_version it
// reports, so changed_since can later compare against it.
func (e *Engine) Validate(ctx context.Context, c service.Caller, language string, req pilotage.ValidateRequest) (*pilotage.ValidateResponse, error) {
	st, l, err := e.language(language)
	if err != nil {
		return nil, err
	}
	if !l.caps.Has(pilotage.CapValidate) {
		return nil, unsupported("Language %s does not declare validate", l.ID)
	}
	v := e.view(st, l, c.Principal)
	ck, err := e.check(ctx, v, req.Program, req.Context, inline, false)
	if err != nil {
		return nil, err
	}
	resp := &pilotage.ValidateResponse{Valid: pilotage.Valid(ck.diags), Diagnostics: ck.diags}
	if l.caps.Has(pilotage.CapCatalog) {
		resp.CatalogVersion = v.version
	}
	if resp.Valid {
		switch {
		case l.caps.Has(pilotage.CapPlan):
			// A command's engine remembers no check: the plan may
			// let go of the program as it is made.
			if resp.Plan, err = v.plan(ck.prog, e.opts.CheckOnce); err != nil {
				return nil, err
			}
		case l.caps.Has(pilotage.CapCatalog):
			resp.References = ck.refs
		}
	}
	return resp, nil
}

// plan derives the plan of a valid program, stamped with the snapshot;
// last says the caller is done with prog (program.PlanLast). Its error
// is internal: the Language's risk levels, not the request, are at
// fault.
func (v *view) plan(prog *program.Program, last bool) (*pilotage.Plan, error) {
	derive := program.Plan
	if last {
		derive = program.PlanLast
	}
	p, err := derive(prog, v.lang.Grammar.Arms, v.lang.levels)
	if err != nil {
		return nil, fmt.Errorf("plan of a program of %s: %w", v.lang.ID, err)
	}
	switch v.lang.ExecutionMode {
	case pilotage.ModeImmediate, pilotage.ModeDeploy:
		p.Mode = v.lang.ExecutionMode
	}
	if v.lang.caps.Has(pilotage.CapCatalog) {
		p.CatalogVersion = v.version
	}
	return p, nil
}

// bodyKind says whose program is being checked: an inline program binds
// `input` by the Language's convention, a promoted body by its entry's
// input_schema.
type bodyKind struct {
	promoted *entry
}

var inline = bodyKind{}

// checked is a program read and checked against one view.
type checked struct {
	prog  *program.Program
	diags []pilotage.Diagnostic
	refs  []string
	// context is the bound context value (nil when none).
	context any
}

// check reads and checks a program and its context exactly as validate
// does; execute uses it for revalidation (§6.5.2 step 3), with run set:
// its expressions are prepared to run, not only typed. Errors are
// request errors (resource_limit, invalid_request) or internal ones.
func (e *Engine) check(ctx context.Context, v *view, raw, ctxRaw json.RawMessage, body bodyKind, run bool) (*checked, error) {
	l := v.lang
	if isAbsent(raw) {
		return nil, invalid("the request has no program")
	}
	if body != inline || e.opts.CheckOnce {
		return e.checkNow(ctx, v, raw, ctxRaw, body, run)
	}
	key := checkKey{st: v.st, lang: l, principal: v.principal, sum: checkSum(raw, ctxRaw)}
	if ck := e.last.get(key, run); ck != nil {
		return ck, nil
	}
	ck, err := e.checkNow(ctx, v, raw, ctxRaw, body, run)
	if err == nil {
		e.last.put(key, ck, run)
	}
	return ck, err
}

// lastCheck is the inline program an engine checked last and what it was
// checked against, which answers a check of the same program again:
// validate and then execute of one program (the loop of §6.5), and
// pilotage test's cases, each of which validates and executes its
// program, many naming one program file. Checking a program of 20,000
// steps takes seconds, too long to pay again for each case. It holds one
// checked program beyond the requests, at most limits program's worth.
type lastCheck struct {
	mu  sync.Mutex
	key checkKey
	// run is set when ck's expressions are prepared to run (it then
	// answers validate too).
	run bool
	ck  *checked
}

// checkKey is what a check depends on: the catalog state (immutable,
// replaced by every change), the Language, the principal whose view it
// is, and the program and context, by their hash.
type checkKey struct {
	st        *state
	lang      *lang
	principal string
	sum       [sha256.Size]byte
}

func checkSum(raw, ctxRaw json.RawMessage) [sha256.Size]byte {
	h := sha256.New()
	fmt.Fprintf(h, "%d\x00", len(raw))
	h.Write(raw)
	h.Write(ctxRaw)
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

// get is the check remembered under key, if it serves (run: prepared to
// run), with diagnostics of the caller's own.
func (m *lastCheck) get(key checkKey, run bool) *checked {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ck == nil || m.key != key || run && !m.run {
		return nil
	}
	ck := *m.ck
	ck.diags = slices.Clone(ck.diags)
	return &ck
}

func (m *lastCheck) put(key checkKey, ck *checked, run bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := *ck
	c.diags = slices.Clone(ck.diags)
	m.key, m.ck, m.run = key, &c, run
}

// checkNow is check, not remembered.
func (e *Engine) checkNow(ctx context.Context, v *view, raw, ctxRaw json.RawMessage, body bodyKind, run bool) (*checked, error) {
	l := v.lang
	src := syntax.Source(l.Locator, raw)
	if len(src) > l.limits.ProgramBytes {
		return nil, &ProgramError{RequestError: &pilotage.RequestError{Kind: pilotage.ErrResourceLimit,
			Message: fmt.Sprintf("the program is %d bytes; this Language validates programs of at most %d bytes", len(src), l.limits.ProgramBytes)}}
	}
	parse := l.syntax.Parse
	if e.opts.CheckOnce && body == inline {
		parse = func(src []byte, depth int) (*syntax.Parsed, error) { return syntax.ParseHeld(l.syntax, src, depth) }
	}
	parsed, err := parse(src, l.limits.Depth)
	if err != nil {
		return nil, overLimit(err, nil)
	}
	syntax.SentAsValue(l.Language, raw, parsed.Diagnostics)
	prog, diags := parsed.Program, parsed.Diagnostics
	ck := &checked{prog: prog}
	if pilotage.Valid(diags) {
		env := v.programEnv(body, e.noPrincipalHint(v))
		env.TypesOnly = !run
		env.Place = parsed.Place()
		res, err := program.Check(prog, env)
		var le *program.LimitError
		if errors.As(err, &le) {
			return nil, overLimit(le, parsed)
		}
		if err != nil {
			return nil, fmt.Errorf("building the expression environment: %w", err)
		}
		diags, ck.refs = res.Diagnostics, res.References
	}
	diags = parsed.Locate(diags)
	cdiags, cval, err := contextBinding(ctx, l, ctxRaw)
	if err != nil {
		return nil, err
	}
	ck.diags = append(append([]pilotage.Diagnostic{}, diags...), cdiags...)
	ck.context = cval
	return ck, nil
}

// ProgramError is a request error about the program, a bound of §10.1
// it exceeds, with the place it exceeds it at when known (Path, in the
// Language's dialect, §5.5), so that a command line prints it at the
// program's file, line and column like a diagnostic. What a response
// carries is the RequestError it unwraps to: a request error has no
// path on the wire.
type ProgramError struct {
	*pilotage.RequestError
	Path *pilotage.Path
}

func (e *ProgramError) Unwrap() error { return e.RequestError }

// overLimit is the resource_limit request error of a program over a
// bound, placed where the bound says (program.LimitError); parsed, once
// the program is read, turns a step pointer into its place in the text.
func overLimit(err error, parsed *syntax.Parsed) error {
	pe := &ProgramError{RequestError: &pilotage.RequestError{Kind: pilotage.ErrResourceLimit, Message: err.Error()}}
	var le *program.LimitError
	switch {
	case !errors.As(err, &le):
	case le.At.Line > 0:
		pe.Path = &pilotage.Path{Text: &pilotage.TextRange{Start: le.At, End: le.At}}
	case le.Pointer != "":
		p := pilotage.PointerPath(le.Pointer)
		if parsed != nil {
			p = parsed.Locate([]pilotage.Diagnostic{{Path: p}})[0].Path
		}
		pe.Path = &p
	}
	return pe
}

func isAbsent(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}

// programEnv is the checking environment of a program in this view;
// unknownHint is the hint of an unknown name no visible id is close to.
func (v *view) programEnv(body bodyKind, unknownHint string) *program.Env {
	l := v.lang
	env := &program.Env{
		Grammar:  &l.Grammar,
		Limits:   expr.Limits{Depth: l.limits.Depth, Size: expr.MaxSize, Cost: ExprCost},
		Lookup:   v.target,
		Code:     l.code,
		HasInput: l.Grammar.Input, Input: expr.Schema{"type": "object"},
		UnknownHint: unknownHint,
		Labels:      l.Text != nil,
	}
	for _, en := range v.entries {
		env.Visible = append(env.Visible, en.wire.ID)
	}
	if body.promoted != nil {
		env.HasInput, env.Input = true, expr.ParseSchema(body.promoted.wire.InputSchema)
	}
	if len(l.ContextSchema) > 0 {
		env.HasContext, env.Context = true, expr.ParseSchema(l.ContextSchema)
	}
	return env
}

// noPrincipalHint is the hint of an unknown name in v: Options.
// NoPrincipalHint's when v is no principal's on a Server that declares
// principals, and none otherwise.
func (e *Engine) noPrincipalHint(v *view) string {
	if v.principal != "" || len(v.st.srv.Principals) == 0 {
		return ""
	}
	return e.opts.NoPrincipalHint(v.st.srv)
}

// target resolves an id in the view: invisible and missing look the same.
func (v *view) target(id string) (program.Target, bool) {
	en := v.entry(id)
	if en == nil {
		return program.Target{}, false
	}
	k, known := v.lang.kinds[en.wire.Kind]
	t := program.Target{Entry: en.wire, Callable: known && k.Callable, Promoted: en.prom != nil}
	if !known && len(v.lang.kinds) == 0 {
		// A Language that enumerates no kinds declares no catalog
		// semantics to refuse a call by.
		t.Callable = true
	}
	return t, true
}

// contextBinding applies §6.4's context rules: with context_schema, context
// must be present and valid; without it, context must be absent.
func contextBinding(ctx context.Context, l *lang, raw json.RawMessage) ([]pilotage.Diagnostic, any, error) {
	diag := func(ptr, msg string) pilotage.Diagnostic {
		return pilotage.Diagnostic{Code: pilotage.CodeContextBinding, Severity: pilotage.SeverityError, Message: msg, Path: pilotage.PointerPath(ptr)}
	}
	if len(l.ContextSchema) == 0 {
		if !isAbsent(raw) {
			return []pilotage.Diagnostic{diag("", "this Language takes no context; leave context out")}, nil, nil
		}
		return nil, nil, nil
	}
	if isAbsent(raw) {
		return []pilotage.Diagnostic{diag("", "this Language requires context matching its context_schema (see the manifest)")}, nil, nil
	}
	// A context is read whole, and decoded twice (for the schema and for
	// CEL), at tens of bytes a byte for one-character values: it is
	// bounded like the program it comes with.
	if len(raw) > l.limits.ProgramBytes {
		return []pilotage.Diagnostic{diag("", fmt.Sprintf("context is %d bytes; this Language reads a context of at most %d, its program limit (limits program)", len(raw), l.limits.ProgramBytes))}, nil, nil
	}
	// Checked first, so the schema judges the context the caller sent,
	// not encoding/json's last-wins reading of a member name given twice;
	// decoded last, so the schema's decoding is garbage by then.
	held, err := expr.CheckHeld(raw)
	if err != nil {
		return []pilotage.Diagnostic{diag("", "context is not valid JSON: "+err.Error())}, nil, nil
	}
	if d := overHeld("context", len(raw), held, l.limits.MemoryBytes); d != "" {
		return []pilotage.Diagnostic{diag("", d)}, nil, nil
	}
	vs, err := schemaViolations(ctx, l.ContextSchema, raw)
	if err != nil {
		return nil, nil, err
	}
	var out []pilotage.Diagnostic
	for _, v := range vs {
		out = append(out, diag(v.Pointer, "context: "+v.Message))
	}
	if len(out) > 0 {
		return out, nil, nil
	}
	val, err := expr.DecodeCheckedJSON(raw)
	if re, ok := errors.AsType[*expr.RangeError](err); ok {
		return []pilotage.Diagnostic{diag(re.Pointer, "context: "+err.Error())}, nil, nil
	}
	if err != nil {
		return []pilotage.Diagnostic{diag("", "context is not valid JSON: "+err.Error())}, nil, nil
	}
	return nil, val, nil
}

// schemaCache holds compiled JSON Schemas by their text as written: the
// same catalog schemas validate every call's input, and looking the text
// up costs far less than canonicalising it first. The schemas are the
// server's own (catalog, context_schema), each Language's within the
// budget the PDL compiler charges them together; but a long-lived
// process serves several Languages, and a catalog that changes over a
// long run brings new ones, so the cache keeps the most recently used
// within schemaBudget estimated bytes and maxCachedSchemas schemas. An
// evicted schema is compiled again when next met.
var schemaCache = lru.New[schemaResult](schemaBudget, maxCachedSchemas)

type schemaResult struct {
	s   *jsonschema.Schema
	err error
}

// What the compiled schemas may hold together, estimated as schemacost
// estimates compiling each (its peak, so more than what stays): five
// Languages at the 6 MiB a small PDL allows each, or some hundreds of
// the ones real catalogs write (homeflow's cost some tens of kilobytes
// together).
const (
	schemaBudget     = 32 << 20
	maxCachedSchemas = 4096
)

// compileBudget bounds the estimated cost (schemacost, as the cache
// weighs it) of the schemas being compiled at once. The cache bounds what
// is kept, not what is being built: go-sdk answers a Session's requests
// concurrently, so the first calls of many costly schemas, written at
// once, would otherwise all compile together. A quarter of the cache's
// budget compiles the costliest schema a small PDL allows (about 6 MiB)
// one at a time and real catalogs' (kilobytes) hundreds at once: 40
// Languages of such a schema each, every request written at once, peak
// at 103 – 109 MB (123 at half the cache's budget, 136 – 141 at all of
// it, 137 – 220 without the bound; docs/performance.md).
const compileBudget = schemaBudget / 4

// compiling is the engine's gate to compiling a schema.
var compiling = newGate(compileBudget, compileText)

// compileSchema returns the compiled schema raw, from the cache or
// compiled under the gate; its error is the schema's own (it does not
// compile). waitErr is the context's error when ctx ended while the
// compile waited its turn.
func compileSchema(ctx context.Context, raw json.RawMessage) (s *jsonschema.Schema, err, waitErr error) {
	r, waitErr := compiling.get(ctx, raw)
	return r.s, r.err, waitErr
}

// compileText compiles raw, not yet cached.
func compileText(raw json.RawMessage) schemaResult {
	var r schemaResult
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		r.err = err
		return r
	}
	// Named by the canonical text, so equal schemas written
	// differently report the same locations.
	r.s, r.err = pilotage.CompileOffline("schema-"+hashBytes(canonical(raw)), doc)
	return r
}

// gate compiles schemas into schemaCache, each text once however many
// calls ask for it together, with the estimated cost of those being
// compiled at once within its limit: a schema over the whole limit
// compiles alone. A call waiting its turn leaves when its context ends.
type gate struct {
	sem     *semaphore.Weighted
	limit   int64
	compile func(json.RawMessage) schemaResult
	mu      sync.Mutex
	flights map[string]*flight
}

// flight is one text being compiled; done is closed when r is set, or
// when its compiler left waiting (ok false), so that those waiting on
// it try again under their own contexts.
type flight struct {
	done chan struct{}
	r    schemaResult
	ok   bool
}

func newGate(limit int64, compile func(json.RawMessage) schemaResult) *gate {
	return &gate{sem: semaphore.NewWeighted(limit), limit: limit, compile: compile, flights: map[string]*flight{}}
}

func (g *gate) get(ctx context.Context, raw json.RawMessage) (schemaResult, error) {
	for {
		if r, ok := schemaCache.Get(string(raw)); ok {
			return r, nil
		}
		g.mu.Lock()
		f, joined := g.flights[string(raw)]
		if !joined {
			// A flight is left after its schema is cached: one that
			// ended since the look-up above left it there.
			if r, ok := schemaCache.Get(string(raw)); ok {
				g.mu.Unlock()
				return r, nil
			}
			f = &flight{done: make(chan struct{})}
			g.flights[string(raw)] = f
		}
		g.mu.Unlock()
		if !joined {
			return g.fly(ctx, raw, f)
		}
		select {
		case <-f.done:
			if f.ok {
				return f.r, nil
			}
		case <-ctx.Done():
			return schemaResult{}, ctx.Err()
		}
	}
}

// fly compiles raw for f once the gate has room for its estimate.
func (g *gate) fly(ctx context.Context, raw json.RawMessage, f *flight) (schemaResult, error) {
	defer func() {
		g.mu.Lock()
		delete(g.flights, string(raw))
		g.mu.Unlock()
		close(f.done)
	}()
	w := schemaWeight(raw)
	n := min(int64(w), g.limit)
	if err := g.sem.Acquire(ctx, n); err != nil {
		return schemaResult{}, err
	}
	defer g.sem.Release(n)
	f.r, f.ok = schemaCache.Put(string(raw), g.compile(raw), w), true
	return f.r, nil
}

// schemaWeight is what the compiled schema raw is charged in the cache:
// schemacost's estimate, from a tree that is garbage once it is walked.
// Text that is not JSON compiled to nothing and weighs only its key.
func schemaWeight(raw json.RawMessage) int {
	doc, err := jsonpos.ParseShared(raw)
	if err != nil {
		return 0
	}
	return int(schemacost.Cost(doc.Root))
}

// schemaViolations validates value against schema. A schema that does not
// compile admits everything: the catalog is the server's own claim, and a
// lint rule reports bad schemas. Its error is the context's, ended while
// the schema waited to compile.
func schemaViolations(ctx context.Context, schema, value json.RawMessage) ([]pilotage.SchemaViolation, error) {
	s, err, waitErr := compileSchema(ctx, schema)
	if waitErr != nil || err != nil {
		return nil, waitErr
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(value))
	if err != nil {
		return []pilotage.SchemaViolation{{Message: "not valid JSON: " + err.Error()}}, nil
	}
	return pilotage.Violations(s.Validate(inst)), nil
}
