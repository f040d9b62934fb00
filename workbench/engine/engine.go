// Package engine is the workbench's reference implementation of Pilotage
// Part II for any compiled Language: discover, learn, lookup, validate with
// plans, execute with bounded evaluation and traces, promotion and drift,
// idempotency, retention and the trace fetch door, behind
// workbench/service.Service. The choices it makes where Part II leaves
// room are listed in docs/coverage/engine.md, "The engine's choices".
package engine

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/closedsets"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/binding"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/internal/model/syntax"
	"github.com/pilotage-dev/pilotage/workbench/engine/runstore"
	"github.com/pilotage-dev/pilotage/workbench/service"
)

var _ service.Service = (*Engine)(nil)

// Options configure an Engine.
type Options struct {
	// DataDir holds the durable run store. Without it a Language whose
	// retention is an ISO duration is served, and declared, as "session":
	// the engine cannot keep that commitment across a restart (§6.6).
	DataDir string
	// Address names the operation address (binding.md: the MCP tool) of
	// operation op ("learn", "lookup", "validate", "execute", "trace") of
	// a Language; nil means DefaultAddress.
	Address func(languageID, op string) string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// IDKey fixes the secret deployed program ids are keyed with (§10.3),
	// so tests and goldens read the same ids every run; nil means the run
	// store's key.
	IDKey []byte
	// Retain bounds the memory of Runs kept for retention "session"
	// (runstore.Limits): past it they spill to a temporary file, or, with
	// NoSpill, a Run to be kept is refused with resource_limit.
	Retain runstore.Limits
	// CheckTraces runs pilotage replay's checks on every trace a Run
	// returns or keeps, against its program's plan; a trace that fails
	// them is an internal error (selfcheck.go). Tests turn it on.
	CheckTraces bool
	// Behave, when set, gives each call of a catalog entry a behaviour in
	// place of the one the PDL scripts; nil from it keeps the PDL's.
	// pilotage test's per-call stubs use it (docs/test.md).
	Behave func(id string) *language.Behavior
	// NoPrincipalHint gives the hint of every unknown name a caller
	// acting as no principal writes, on a Server that declares
	// principals: to it every name is unknown (§10.3). The hint is the
	// same for each name, hidden or missing. nil means
	// Server.NoPrincipalNote, which names the principals and the
	// --principal flag, for the user of a command who can give it; a
	// server's client cannot, so serve gives its own.
	NoPrincipalHint func(*language.Server) string
	// CheckOnce is set by a command that sends one request (pilotage
	// validate, plan and run): the engine remembers no checked program
	// for a request after it, which would hold the program's step model
	// to the command's end, while it writes the plan or the trace
	// (docs/performance.md, "A large valid program"). Such a command
	// holds the request's program, unchanged, until it has the
	// response: the step model views its bytes (syntax.ParseHeld).
	CheckOnce bool
}

// Engine serves one compiled Server. It is safe for concurrent use.
type Engine struct {
	opts  Options
	store *runstore.Store
	// mu guards st, promoted and baselines; st itself is immutable.
	mu       sync.RWMutex
	st       *state
	promoted map[string]*entry
	// pdlBaselines keeps the baseline recorded when a PDL-defined promoted
	// program was first loaded, so a reload that changes what it
	// references meets promotion_drift (§5.4).
	pdlBaselines map[string]*promotion
	versions     *versionLog
	terminal     *terminal
	// keys holds the idempotency keys of Runs in flight.
	keys keyLocks
	// idKey keys the names of deployed programs (programName).
	idKey []byte
	last  lastCheck
}

// New starts an engine for srv.
func New(srv *language.Server, opts Options) (*Engine, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Address == nil {
		opts.Address = DefaultAddress
	}
	if opts.NoPrincipalHint == nil {
		opts.NoPrincipalHint = (*language.Server).NoPrincipalNote
	}
	store, err := runstore.Open(opts.DataDir, opts.Now, opts.Retain)
	if err != nil {
		return nil, err
	}
	e := &Engine{opts: opts, store: store, promoted: map[string]*entry{}, pdlBaselines: map[string]*promotion{}, versions: newVersionLog(4096), idKey: opts.IDKey,
		terminal: &terminal{ids: map[string]bool{}}}
	if e.idKey == nil {
		e.idKey = store.IDKey()
	}
	if err := e.loadPromoted(); err != nil {
		store.Close()
		return nil, err
	}
	if err := e.Reload(srv); err != nil {
		store.Close()
		return nil, err
	}
	return e, nil
}

// Close releases the durable store.
func (e *Engine) Close() error { return e.store.Close() }

// Reload swaps the served model atomically. Runs in flight finish on the
// model they started with; promoted programs survive; the next
// catalog_version reflects the change, so clients meet catalog_drift and
// promotion_drift for real.
func (e *Engine) Reload(srv *language.Server) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	st, err := e.build(srv)
	if err != nil {
		return err
	}
	e.st = st
	return nil
}

func (e *Engine) state() *state {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.st
}

// DefaultAddress is binding.md's tool naming, kept in internal/model/binding.
func DefaultAddress(languageID, op string) string { return binding.Tool(languageID, binding.Op(op)) }

// ExprCost bounds one CEL evaluation (cost units of cel-go).
const ExprCost = 1_000_000

// lang is a Language with what the engine derives from it once.
type lang struct {
	*language.Language
	caps         pilotage.Capabilities
	limits       language.Limits
	codes        map[string]bool
	kinds        map[string]closedsets.Kind
	levels       []pilotage.RiskLevel
	runStatuses  map[string]closedsets.Status
	stepStatuses map[string]closedsets.Status
	retention    string
	keep         time.Duration // for an ISO-duration retention
	syntax       syntax.Syntax
}

func (e *Engine) newLang(srv *language.Server, l *language.Language) (*lang, error) {
	lg := &lang{Language: l, caps: pilotage.Effective(srv.Capabilities, l.Capabilities), limits: l.Limits.WithDefaults(),
		codes: map[string]bool{}, kinds: map[string]closedsets.Kind{}, levels: l.Sets.Levels(),
		runStatuses: map[string]closedsets.Status{}, stepStatuses: map[string]closedsets.Status{}, retention: l.Retention, syntax: syntax.For(l)}
	for _, c := range l.Sets.DiagnosticCodes {
		lg.codes[c.Code] = true
	}
	for _, k := range l.Sets.Kinds {
		lg.kinds[k.Kind] = k
	}
	for _, s := range l.Sets.RunStatuses {
		lg.runStatuses[s.Status] = s
	}
	for _, s := range l.Sets.StepStatuses {
		lg.stepStatuses[s.Status] = s
	}
	switch l.Retention {
	case "", pilotage.RetentionNone, pilotage.RetentionSession:
	default:
		d, err := pilotage.ParseISODuration(l.Retention)
		if err != nil {
			return nil, fmt.Errorf("language %s: retention: %w", l.ID, err)
		}
		if e.store.Durable() {
			lg.keep = d
		} else {
			lg.retention = pilotage.RetentionSession
		}
	}
	return lg, nil
}

// code returns preferred when the Language declares it, else constraint.
func (l *lang) code(preferred string) string {
	if l.codes[preferred] {
		return preferred
	}
	return pilotage.CodeConstraint
}

func (e *Engine) language(id string) (*state, *lang, error) {
	st := e.state()
	l := st.langs[id]
	if l == nil {
		return nil, nil, &pilotage.RequestError{Kind: pilotage.ErrNotFound, Message: fmt.Sprintf("this server has no Language %q", report.Clip(id))}
	}
	return st, l, nil
}

func unsupported(format string, args ...any) error {
	return &pilotage.RequestError{Kind: pilotage.ErrUnsupported, Message: fmt.Sprintf(format, args...)}
}

func invalid(format string, args ...any) error {
	return &pilotage.RequestError{Kind: pilotage.ErrInvalidRequest, Message: fmt.Sprintf(format, args...)}
}

func newRunID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return "run-" + hex.EncodeToString(b[:])
}

// Discover returns the manifest (§6.1), with each Language's retention as
// the engine can honour it.
func (e *Engine) Discover(ctx context.Context) (*pilotage.Manifest, error) {
	st := e.state()
	m := &pilotage.Manifest{Pilotage: pilotage.Version, Capabilities: st.srv.Capabilities, Languages: []pilotage.LanguageEntry{}}
	if st.srv.Name != "" || st.srv.Version != "" {
		m.Server = &pilotage.ServerInfo{Name: st.srv.Name, Version: st.srv.Version}
	}
	for _, l := range st.order {
		a := func(op string) string { return e.opts.Address(l.ID, op) }
		le := pilotage.LanguageEntry{ID: l.ID, Title: l.Title, Description: l.Description, Capabilities: l.Capabilities,
			Guides: a("learn"), Loop: pilotage.Loop{Validate: a("validate")}, Locator: l.Locator, ContextSchema: l.ContextSchema,
			ExecutionMode: l.ExecutionMode, TraceLevel: l.TraceLevel, Retention: l.retention,
			TraceSubprogram: l.TraceSubprogram, PromotionAuthority: l.PromotionAuthority}
		if l.caps.Has(pilotage.CapCatalog) {
			le.Catalog = a("lookup")
		}
		if l.caps.Has(pilotage.CapExecute) {
			le.Loop.Execute = a("execute")
		}
		if l.caps.Has(pilotage.CapTraceFetch) {
			le.Loop.Trace = a("trace")
		}
		m.Languages = append(m.Languages, le)
	}
	return m, nil
}

// EndSession drops what retention "session" kept for the Session; its
// idempotency records follow runstore.ReplayGrace later, so a client that
// reconnects can still retry (§6.5.6).
func (e *Engine) EndSession(session string) { e.store.EndSession(session) }
