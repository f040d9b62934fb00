package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/expr"
	"github.com/pilotage-dev/pilotage/internal/model/program"
	"github.com/pilotage-dev/pilotage/workbench/engine/runstore"
	"github.com/pilotage-dev/pilotage/workbench/service"
)

// request is an execute request after the checks of §6.5.2 step 1.
type request struct {
	pilotage.ExecuteRequest
	caller  service.Caller
	lang    *lang
	st      *state
	view    *view
	ref     *entry // the promoted program of a program_ref Run
	mode    string // immediate or deploy
	testRun bool
	level   string // the effective trace level
	keep    bool   // whether the run record is retained
	// each gets the trace's entries at level as the Run completes them,
	// in place of the response's trace steps (ExecuteEach).
	each func(pilotage.TraceStep)
}

// Execute runs a program or a promoted program in the processing order of
// §6.5.2: request checks (runnable selection, program_ref resolution under
// the caller's authority, trace_level, test_run, mode, store, idempotency),
// then catalog drift, then revalidation or the promotion baseline, then
// input and context binding, then execution.
func (e *Engine) Execute(ctx context.Context, c service.Caller, language string, req pilotage.ExecuteRequest) (*pilotage.ExecuteResponse, error) {
	return e.ExecuteEach(ctx, c, language, req, nil)
}

// ExecuteEach is Execute handing the response's trace entries to each,
// in order, as the Run completes them, instead of in its trace, whose
// Steps are then nil: for a caller that writes the trace its own way
// (pilotage run's text), so that the Run need not hold every entry
// until it ends. each is not called when the response has no trace.
func (e *Engine) ExecuteEach(ctx context.Context, c service.Caller, language string, req pilotage.ExecuteRequest, each func(pilotage.TraceStep)) (*pilotage.ExecuteResponse, error) {
	resp, err := e.execute(ctx, c, language, req, each)
	if err != nil || each == nil || resp.Trace == nil || resp.Trace.Steps == nil {
		return resp, err
	}
	// The entries of a trace the Run did not hand over as it went: a
	// deploy Run's, or a response replayed for its idempotency_key.
	for _, s := range resp.Trace.Steps {
		each(s)
	}
	t := *resp.Trace
	t.Steps = nil
	resp.Trace = &t
	return resp, nil
}

func (e *Engine) execute(ctx context.Context, c service.Caller, language string, req pilotage.ExecuteRequest, each func(pilotage.TraceStep)) (*pilotage.ExecuteResponse, error) {
	r, err := e.accept(c, language, req)
	if err != nil {
		return nil, err
	}
	if r.level != pilotage.LevelNone {
		r.each = each
	}
	if req.IdempotencyKey != nil {
		// Held until the Run is recorded, so two concurrent requests
		// with one key are one execution (§6.5.6), not two that both
		// missed the record.
		defer e.keys.lock(r.replayKey())()
		if replay, err := e.replayed(r); err != nil || replay != nil {
			return replay, err
		}
	}
	if (r.keep || req.IdempotencyKey != nil) && r.lang.keep == 0 {
		// §6.6 forbids forgetting a kept Run while its Session may fetch
		// it, and §6.5.6 a key's response while the key may come again,
		// so a store that can keep no more says so before the Run; a
		// store: false Run with a key leaves its response in memory too.
		release, err := e.store.Admit()
		if err != nil {
			return nil, &pilotage.RequestError{Kind: pilotage.ErrResourceLimit, Message: admitRefusal(err, req.IdempotencyKey != nil)}
		}
		defer release()
	}
	resp := &pilotage.ExecuteResponse{RunID: newRunID()}
	if r.lang.caps.Has(pilotage.CapCatalog) {
		resp.CatalogVersion = r.view.version
	}
	// 2. Catalog drift (§6.5.3): a supplied token is compared, the empty
	// string too, which no catalog_version is.
	if req.ExpectedCatalogVersion != nil && *req.ExpectedCatalogVersion != r.view.version {
		return refuse(resp, pilotage.StatusCatalogDrift, "catalog version mismatch", nil), nil
	}
	// 3. Revalidation, or the promotion baseline.
	var prog *program.Program
	var ctxVal any
	if r.ref == nil {
		ck, err := e.check(ctx, r.view, req.Program, req.Context, inline, true)
		if err != nil {
			return nil, err
		}
		if !pilotage.Valid(ck.diags) {
			return refuse(resp, pilotage.StatusValidationError, "the program does not validate", ck.diags), nil
		}
		prog, ctxVal = ck.prog, ck.context
	} else if why, err := e.refusal(r.st, r.ref, r.lang.ID, r.bodyAuthority(), r.caller.Principal); err != nil || why != "" {
		if err != nil {
			return nil, err
		}
		return refuse(resp, pilotage.StatusPromotionDrift, why, nil), nil
	}
	// 4. Input and context binding (§6.5.5).
	input, diags, err := r.bindInput(ctx)
	if err != nil {
		return nil, err
	}
	if r.ref != nil {
		cd, cv, err := contextBinding(ctx, r.lang, req.Context)
		if err != nil {
			return nil, err
		}
		diags, ctxVal = append(diags, cd...), cv
	}
	if len(diags) > 0 {
		return refuse(resp, pilotage.StatusValidationError, "the input or context does not bind", diags), nil
	}
	if r.ref != nil {
		// The body was validated at promotion; it is rebuilt with every
		// name in reach, and each call is authorized as it runs (§10.3).
		ck, err := e.check(ctx, e.view(r.st, r.lang, serverAuthority), r.ref.prom.Body, req.Context, bodyKind{promoted: r.ref}, true)
		if err != nil {
			return nil, err
		}
		if !pilotage.Valid(ck.diags) {
			diags := ck.diags
			if r.concealed() {
				diags = nil // they would name what the caller may not see
			}
			return refuse(resp, pilotage.StatusValidationError, "the promoted program no longer validates", diags), nil
		}
		prog = ck.prog
	}
	// 5. Execution.
	var full *pilotage.Trace
	if r.installs() {
		full, err = e.install(r, resp, prog)
		if err != nil {
			return nil, err
		}
	} else {
		full = e.run(ctx, r, resp, prog, input, ctxVal)
	}
	return e.finish(r, resp, full, prog)
}

// admitRefusal says why the run store refused to keep one more Run, and
// what mends it: the client can run without keeping (and without an
// idempotency key, keyed says one was sent, whose response is kept as
// well), or free what its Sessions keep; a spill that failed is the
// operator's to mend.
//
// Why a spill failed names the server's files (a path, a disk), which are
// the operator's: the operator's log says it (runstore.Limits.
// OnSpillFailure), the client hears only that it failed.
func admitRefusal(err error, keyed bool) string {
	msg := "this server keeps no more Runs for their Session: " + runstore.ErrFull.Error()
	remedy := "send store: false, or end Sessions that kept Runs"
	if keyed {
		remedy = "send store: false without an idempotency_key, or end Sessions that kept Runs"
	}
	if _, ok := errors.AsType[*runstore.SpillError](err); ok {
		return msg + ", and they cannot go to a temporary file; " + remedy + " (the server's operator can give it a writable temporary directory with free space, or more memory for Runs, and restart it)"
	}
	return msg + ", and it may not spill them to disk; " + remedy
}

// bodyAuthority is the authority a program_ref Run's body runs with: the
// caller's, or the promoter's under promotion_authority "promoter"
// (§10.3, §10.4).
func (r *request) bodyAuthority() string {
	if r.ref != nil && r.lang.PromotionAuthority == pilotage.AuthorityPromoter {
		return r.ref.prom.Promoter
	}
	return r.caller.Principal
}

// concealed reports whether a program_ref Run's body names entries the
// caller may not see, so that the caller gets it as one opaque step.
func (r *request) concealed() bool {
	return r.ref != nil && r.st.conceals(r.ref, r.lang.ID, r.caller.Principal)
}

// refuse answers a refused Run (§3.6): no trace, never stored or recorded
// for replay.
func refuse(resp *pilotage.ExecuteResponse, status, msg string, diags []pilotage.Diagnostic) *pilotage.ExecuteResponse {
	resp.Outcome = pilotage.Outcome{OK: false, Status: status, Error: msg}
	resp.Diagnostics = diags
	return resp
}

// accept performs §6.5.2 step 1 up to the idempotency check, which
// replayed makes under the key's lock.
func (e *Engine) accept(c service.Caller, language string, req pilotage.ExecuteRequest) (*request, error) {
	st, l, err := e.language(language)
	if err != nil {
		return nil, err
	}
	if !l.caps.Has(pilotage.CapExecute) {
		return nil, unsupported("Language %s does not declare execute", l.ID)
	}
	r := &request{ExecuteRequest: req, caller: c, lang: l, st: st, view: e.view(st, l, c.Principal)}
	// A supplied program_ref is a runnable even when empty (§6.5.1); alone
	// it is a reference that resolves to nothing.
	hasProg, hasRef := !isAbsent(req.Program), req.ProgramRef != nil
	switch {
	case hasProg && hasRef:
		return nil, invalid("send either program or program_ref, not both")
	case !hasProg && !hasRef:
		return nil, invalid("send a program or a program_ref")
	case hasRef && !l.caps.Has(pilotage.CapCatalog):
		// §6.5.1: program_ref is accepted exactly when promoted programs
		// are exposed in the catalog; without one there are none.
		return nil, unsupported("Language %s declares no catalog, so it exposes no promoted programs to run by program_ref; send the program inline", l.ID)
	case hasRef:
		r.ref = r.view.entry(*req.ProgramRef)
		if r.ref == nil || r.ref.prom == nil {
			return nil, &pilotage.RequestError{Kind: pilotage.ErrNotFound, Message: fmt.Sprintf("no promoted program %q", report.Clip(*req.ProgramRef)), CatalogVersion: r.view.version}
		}
	}
	r.level = l.ceiling()
	if req.TraceLevel != nil {
		// A supplied "" is no level either (§6.5.2: whether trace_level
		// is recognized), not the member left out.
		if levelRank(*req.TraceLevel) < 0 {
			return nil, invalid("unknown trace_level %s: use none, summary or full", report.Quote(*req.TraceLevel))
		}
		r.level = lower(*req.TraceLevel, r.level)
	}
	if req.TestRun != nil {
		if !l.caps.HasSub(pilotage.CapExecute, pilotage.SubTestRun) {
			return nil, unsupported("Language %s does not declare execute.test_run; leave test_run out", l.ID)
		}
		r.testRun = *req.TestRun
	}
	if err := r.selectMode(); err != nil {
		return nil, err
	}
	switch {
	case req.Store != nil && *req.Store && l.retention == pilotage.RetentionNone:
		return nil, unsupported("Language %s retains nothing (retention none), so store: true cannot be honoured", l.ID)
	case req.Store != nil:
		r.keep = *req.Store
	default:
		r.keep = l.retention != pilotage.RetentionNone && l.retention != ""
	}
	if req.IdempotencyKey != nil && !l.caps.HasSub(pilotage.CapExecute, pilotage.SubIdempotency) {
		return nil, unsupported("Language %s does not declare execute.idempotency; leave idempotency_key out", l.ID)
	}
	return r, nil
}

// replayed finishes §6.5.2 step 1 for an idempotency key: the recorded
// response of the key's first Run, a conflict when the key came with
// another runnable or input, or nil for a key not yet used.
func (e *Engine) replayed(r *request) (*pilotage.ExecuteResponse, error) {
	rec, err := e.store.Replay(r.replayKey())
	if err != nil || rec == nil {
		return nil, err
	}
	if rec.Fingerprint != r.fingerprint() {
		return nil, &pilotage.RequestError{Kind: pilotage.ErrConflict, Message: "this idempotency_key was used with another runnable or input; use a fresh key"}
	}
	var resp pilotage.ExecuteResponse
	if err := json.Unmarshal(rec.Response, &resp); err != nil {
		return nil, err
	}
	return &resp, nil
}

// selectMode applies execution_mode and the binding's mode selector. A
// supplied mode "" selects no mode, so it is refused like any unknown one.
func (r *request) selectMode() error {
	declared := r.lang.ExecutionMode
	switch {
	case declared == pilotage.ModeBoth && r.Mode == nil:
		r.mode = pilotage.ModeImmediate
	case declared == pilotage.ModeBoth:
		switch *r.Mode {
		case pilotage.ModeImmediate, pilotage.ModeDeploy:
			r.mode = *r.Mode
		default:
			return invalid("unknown mode %s: use immediate or deploy", report.Quote(*r.Mode))
		}
	case r.Mode != nil && *r.Mode != declared:
		return invalid("Language %s executes in mode %s only; mode %s cannot be selected", r.lang.ID, declared, report.Quote(*r.Mode))
	case declared == "":
		r.mode = pilotage.ModeImmediate
	default:
		r.mode = declared
	}
	return nil
}

// fingerprint identifies the runnable and input of a request (§6.5.6);
// the Language is part of the runnable.
func (r *request) fingerprint() string {
	ref := ""
	if r.ref != nil {
		ref = r.ref.wire.ID
	}
	return hashBytes(mustJSON([]string{r.lang.ID, string(canonical(r.Program)), ref, r.mode, fmt.Sprint(r.testRun), string(canonical(r.Input))}))
}

// replayKey scopes an idempotency key to the Server (§6.5.6) and, within
// it, to the caller's principal: otherwise a caller who reused another
// principal's key with the same program would be handed that principal's
// recorded output and trace before any authorization check ran (§10.3).
func (r *request) replayKey() string {
	return r.caller.Principal + "\x00" + *r.IdempotencyKey
}

// bindInput applies the parameter-binding convention (semantics.go) or,
// for a promoted program, the entry's input_schema.
func (r *request) bindInput(ctx context.Context) (any, []pilotage.Diagnostic, error) {
	bad := func(ptr, msg string) []pilotage.Diagnostic {
		return []pilotage.Diagnostic{{Code: pilotage.CodeInputBinding, Severity: pilotage.SeverityError, Message: msg, Path: pilotage.PointerPath(ptr)}}
	}
	raw := r.Input
	if r.ref == nil && !r.lang.Grammar.Input {
		if !isAbsent(raw) {
			return nil, bad("", "this Language's inline programs take no input; leave input out"), nil
		}
		return nil, nil, nil
	}
	if isAbsent(raw) {
		if r.installs() {
			// The body does not run now (§6.5.7), so nothing needs an
			// input; one supplied is still checked below.
			return nil, nil, nil
		}
		raw = json.RawMessage(`{}`)
	}
	if int64(len(raw)) > r.lang.limits.MemoryBytes {
		// The input is held for the whole Run (§10.1 memory bound); one
		// that cannot fit is refused before anything runs.
		return nil, bad("", fmt.Sprintf("input is %d bytes; a Run of this Language holds at most %d", len(raw), r.lang.limits.MemoryBytes)), nil
	}
	// Checked, then judged by the schema, then decoded for CEL: the
	// schema's decoding and CEL's are never held together.
	held, err := expr.CheckHeld(raw)
	if err != nil {
		return nil, bad("", "input is not valid JSON: "+err.Error()), nil
	}
	if d := overHeld("input", len(raw), held, r.lang.limits.MemoryBytes); d != "" {
		return nil, bad("", d), nil
	}
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		return nil, bad("", "input must be a JSON object"), nil
	}
	if r.ref != nil && len(r.ref.wire.InputSchema) > 0 {
		vs, err := schemaViolations(ctx, r.ref.wire.InputSchema, raw)
		if err != nil {
			return nil, nil, err
		}
		var out []pilotage.Diagnostic
		for _, vi := range vs {
			out = append(out, bad(vi.Pointer, "input: "+vi.Message)...)
		}
		if len(out) > 0 {
			return nil, out, nil
		}
	}
	v, err := expr.DecodeCheckedJSON(raw)
	if re, ok := errors.AsType[*expr.RangeError](err); ok {
		return nil, bad(re.Pointer, "input: "+err.Error()), nil
	}
	if err != nil {
		return nil, bad("", "input is not valid JSON: "+err.Error()), nil
	}
	return v, nil, nil
}

// overHeld is the message refusing an input or context (what) of n JSON
// bytes whose decoded values would hold held bytes, over the Language's
// memory limit, or "" when they fit. The Run holds them from start to end
// (§10.1 memory bound), and small values take tens of times their JSON
// size once decoded (expr.CheckHeld), so the bytes alone do not bound
// them.
func overHeld(what string, n int, held, limit int64) string {
	if held <= limit {
		return ""
	}
	return fmt.Sprintf("%s's %d bytes of JSON would take about %d bytes held as values; a Run of this Language holds at most %d (limits memory): send fewer values, or raise limits memory", what, n, held, limit)
}

// installs reports whether the Run installs its program (§6.5.7) rather
// than evaluating it.
func (r *request) installs() bool {
	return r.mode == pilotage.ModeDeploy && !r.testRun
}

func (r *request) traceMode() string {
	if r.testRun {
		return pilotage.ModeTestRun
	}
	return r.mode
}

// run executes prog within the Language's limits (§10.1) and returns the
// full-level trace.
func (e *Engine) run(ctx context.Context, r *request, resp *pilotage.ExecuteResponse, prog *program.Program, input, ctxVal any) *pilotage.Trace {
	started := time.Now()
	rctx, cancel := context.WithTimeout(ctx, r.lang.limits.Time)
	defer cancel()
	ru := &runner{ctx: rctx, e: e, st: r.st, lang: r.lang, lim: r.lang.limits, ctxIn: r.Context, caller: r.caller.Principal,
		each: r.each, level: r.level,
		keep: r.keep || r.IdempotencyKey != nil || e.checksTraces() || r.each == nil && r.level != pilotage.LevelNone}
	if ru.keep {
		// The trace has an entry for every step that runs, nearly
		// always each step once: grown by appending, the entries of
		// 20,000 steps took room for 32,768, 2.3 MB more, and a copy at
		// each doubling.
		n := 0
		program.Walk(prog.Steps, func(*program.Step) { n++ })
		ru.steps = make([]pilotage.TraceStep, 0, min(n, r.lang.limits.Steps))
	}
	root := &scope{outputs: map[string]any{}, input: input, context: ctxVal, noInput: isAbsent(r.Input)}
	var out any
	var err error
	if r.concealed() {
		args, _ := input.(map[string]any) // bindInput made it an object
		out, err = ru.concealedRef(r.ref, args)
	} else if _, err = ru.sequence(prog.Steps, root, nil, "", r.bodyAuthority(), 0); err == nil && prog.Output != nil {
		out, err = ru.eval(prog.Output, root)
	}
	var raw json.RawMessage
	if err == nil && prog.Output != nil {
		raw, err = ru.hold(out)
	}
	if err != nil {
		var st *stop
		if !errors.As(err, &st) {
			st = &stop{status: pilotage.StatusPartial, msg: err.Error()}
		}
		resp.Outcome = pilotage.Outcome{OK: false, Status: st.status, Error: st.msg}
	} else {
		resp.Outcome = pilotage.Outcome{OK: true, Status: pilotage.StatusSuccess}
		resp.Output = raw
	}
	steps, mem := ru.shown()
	return &pilotage.Trace{RunID: resp.RunID, Outcome: resp.Outcome, Steps: ru.steps, Mode: r.traceMode(),
		CatalogVersion: resp.CatalogVersion, Stats: stats(steps, mem, started)}
}

func stats(steps int, mem int64, started time.Time) json.RawMessage {
	return mustJSON(map[string]any{"steps_executed": steps, "bytes_held": mem, "elapsed_ms": *elapsed(started)})
}

// install performs a deploy Run (§6.5.7): the body is promoted into the
// catalog and the trace describes the installation.
func (e *Engine) install(r *request, resp *pilotage.ExecuteResponse, prog *program.Program) (*pilotage.Trace, error) {
	started := time.Now()
	id, runnable, err := e.installed(r, prog)
	if err != nil {
		return nil, err
	}
	out := mustJSON(map[string]string{"program_ref": id})
	resp.Outcome = pilotage.Outcome{OK: true, Status: pilotage.StatusSuccess}
	resp.Output = out
	if r.lang.caps.Has(pilotage.CapCatalog) {
		// The catalog now holds the promoted entry.
		st, _, _ := e.language(r.lang.ID)
		resp.CatalogVersion = e.view(st, r.lang, r.caller.Principal).version
	}
	step := pilotage.TraceStep{ID: "install", Kind: pilotage.KindStep, Input: mustJSON(runnable),
		Output: out, Outcome: resp.Outcome, TMs: elapsed(started)}
	return &pilotage.Trace{RunID: resp.RunID, Outcome: resp.Outcome, Steps: []pilotage.TraceStep{step}, Mode: pilotage.ModeDeploy,
		CatalogVersion: resp.CatalogVersion, Stats: stats(1, 0, started)}, nil
}

// installed promotes the body a deploy Run installs and returns its
// reference with the runnable the installation received. A program_ref
// names a body already promoted and immutable (§5.4), checked against its
// baseline before execution (§6.5.2 step 3): installing it again is that
// same body under that same reference, not a second catalog entry.
func (e *Engine) installed(r *request, prog *program.Program) (id string, runnable map[string]any, err error) {
	if r.ref != nil {
		return r.ref.wire.ID, map[string]any{"program_ref": r.ref.wire.ID}, nil
	}
	plan, err := r.view.plan(prog, false)
	if err != nil {
		return "", nil, err
	}
	id, err = e.promote(r.lang, r.Program, plan, r.caller.Principal)
	return id, map[string]any{"program": r.Program}, err
}

// finish attaches the inline trace at the effective level, retains the
// record as store and retention decide (§6.5, §6.6) and records the
// response for idempotent replay (§6.5.6).
func (e *Engine) finish(r *request, resp *pilotage.ExecuteResponse, full *pilotage.Trace, prog *program.Program) (*pilotage.ExecuteResponse, error) {
	// shown is the response's trace; the entries a Run handed to each
	// are not in the response, but kept (runner.keep), they are in the
	// record and the check.
	var shown *pilotage.Trace
	if r.level != pilotage.LevelNone {
		shown = render(full, r.level)
		resp.Trace = shown
		if r.each != nil && !r.installs() {
			t := *shown
			t.Steps = nil
			resp.Trace = &t
		}
	}
	var kept, checked *pilotage.Trace
	if r.keep {
		kept = render(full, r.lang.ceiling())
		if shown == nil || kept.Level != shown.Level {
			checked = kept
		}
	}
	if err := e.checkTraces(r, prog, shown, checked); err != nil {
		return nil, err
	}
	now := e.opts.Now()
	var expires time.Time
	if r.keep {
		rec := &runstore.Record{RunID: resp.RunID, Language: r.lang.ID, Principal: r.caller.Principal, Session: r.caller.Session,
			Outcome: resp.Outcome, Output: resp.Output, Trace: kept}
		if r.lang.keep > 0 {
			expires = now.Add(r.lang.keep)
			rec.Expires = expires
			if err := e.store.PutDurable(rec); err != nil {
				return nil, err
			}
		} else if err := e.store.PutSession(rec); err != nil {
			return nil, err
		}
	}
	if r.IdempotencyKey != nil {
		recorded := *resp
		recorded.Trace = shown
		if !r.keep {
			// store: false forbids keeping the record beyond this
			// response; a replay then gets the run_id and outcome only.
			recorded.Output, recorded.Trace = nil, nil
		}
		if r.lang.keep > 0 && expires.IsZero() {
			expires = now.Add(r.lang.keep)
		}
		// Without an expiry the record lives in memory with the caller's
		// Session and a grace after it (runstore.ReplayGrace).
		if err := e.store.PutReplay(&runstore.Replay{Key: r.replayKey(), Fingerprint: r.fingerprint(), Response: mustJSON(recorded), Expires: expires, Session: r.caller.Session}); err != nil {
			return nil, err
		}
	}
	return resp, nil
}

// keyLocks serialises the Runs of one idempotency key; a key's lock is
// dropped when its last holder releases it, so the map holds only keys in
// flight.
type keyLocks struct {
	mu   sync.Mutex
	held map[string]*keyLock
}

type keyLock struct {
	sync.Mutex
	waiters int
}

// lock takes the lock of key and returns its release.
func (k *keyLocks) lock(key string) (unlock func()) {
	k.mu.Lock()
	if k.held == nil {
		k.held = map[string]*keyLock{}
	}
	l := k.held[key]
	if l == nil {
		l = &keyLock{}
		k.held[key] = l
	}
	l.waiters++
	k.mu.Unlock()
	l.Lock()
	return func() {
		l.Unlock()
		k.mu.Lock()
		if l.waiters--; l.waiters == 0 {
			delete(k.held, key)
		}
		k.mu.Unlock()
	}
}
