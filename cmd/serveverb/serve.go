// Package serveverb is pilotage serve as a function: a PDL file's
// Languages served over MCP on stdio or streamable HTTP, reloaded on
// change with --watch.
package serveverb

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/pilotage-dev/pilotage/cmd/verb"
	"github.com/pilotage-dev/pilotage/internal/base/bytesize"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/workbench/compile"
	"github.com/pilotage-dev/pilotage/workbench/engine"
	"github.com/pilotage-dev/pilotage/workbench/engine/runstore"
	"github.com/pilotage-dev/pilotage/workbench/mcpserver"
	"github.com/pilotage-dev/pilotage/workbench/pdllint"
	"github.com/pilotage-dev/pilotage/workbench/reload"
)

// Params are pilotage serve's argument and flags.
type Params struct {
	// PDL is the FILE.pdl served.
	PDL string
	// HTTP is the address served over streamable HTTP; "" serves stdio.
	HTTP string
	// AllowOrigins are the browser origins HTTP accepts besides its own.
	AllowOrigins []string
	// Principal is the PDL principal a stdio client acts as (§10.3).
	Principal string
	// Data is the directory of durable run records, or "".
	Data string
	// Watch reloads the PDL when it or a file it names changes, or a
	// file of WatchAlso (the configuration Rules reads), looking every
	// WatchInterval; IntervalSet says the interval was given.
	Watch         bool
	WatchInterval time.Duration
	IntervalSet   bool
	WatchAlso     []string
	// RetainMemory is the memory Runs kept for their Session may hold
	// (a size such as 128MiB); NoSpill keeps them off disk past it.
	RetainMemory string
	NoSpill      bool
	// MaxMessage bounds each JSON-RPC message read, a stdio line or an
	// HTTP request body (a size such as 16MiB); "" is MessageBound of
	// the Languages served.
	MaxMessage string
	// MaxSessions bounds the HTTP sessions open at once; 0 is
	// mcpserver.DefaultMaxSessions.
	MaxSessions int
	// MaxSessionsSet says --max-sessions was given (it is for --http).
	MaxSessionsSet bool
	// Version is the tool's version, told to clients at initialize.
	Version string
	// Rules reads pilotage.yaml and returns what brings the lint report
	// of the definition under it as lint's report is brought
	// (conformance). It is called at start and at each --watch reload,
	// so an edit of the file counts from the next reload on. An error (a
	// broken file) is warned of and the report judged as the rules
	// raised it, since serve reads the file only for that warning; nil
	// Rules judges it so too.
	Rules func() (func(*report.Report), error)
	// Loaded, when set, is called once the PDL is compiled, checked and
	// its engine built, before the first request is read (cmd lifts its
	// soft memory limit of the loading there).
	Loaded func()
}

// digests are the SHA-256 sums of a compile's source files, to tell
// whether a second compile read the same bytes without holding them.
func digests(sources map[string][]byte) map[string][sha256.Size]byte {
	out := make(map[string][sha256.Size]byte, len(sources))
	for name, b := range sources {
		out[name] = sha256.Sum256(b)
	}
	return out
}

// MessageBound is the largest JSON-RPC message serve reads by default:
// what the largest request to a Language of srv can legitimately be, an
// execute with an input as large as limits memory (the engine refuses a
// larger one) and a program and a context each up to limits program,
// counted twice for the escapes of a text program carried as a JSON
// string, and envelopeBytes for the rest. A larger message can only be
// refused once go-sdk has decoded it, several times over at several bytes
// a byte: 14 MiB of one-character values took 1.5 to 8 seconds and 140 to
// 180 MB. Computed again from the Languages each --watch reload serves.
func MessageBound(srv *language.Server) int64 {
	var most int64
	for _, l := range srv.Languages {
		lim := l.Limits.WithDefaults()
		most = max(most, lim.MemoryBytes+4*int64(lim.ProgramBytes))
	}
	return most + envelopeBytes
}

// envelopeBytes is what a request holds besides its program, input and
// context: the JSON-RPC and MCP members, the tool's name, _meta and the
// other arguments, a few hundred bytes in practice.
const envelopeBytes = 64 << 10

// compileAgainFrom is the least PDL file serve compiles a second time
// after checking its conformance, rather than holding the first
// compile's Language through lint. From 1 MiB, serve of the largest
// one-line catalog the budget admits (8,841 entries, 485 KB) took 6.9 to
// 11.5 MB over its peak on the Language the catalog extends, past the
// 11.1 MB of 10 bytes a byte and the budget's slack: a verb holds 1,000
// to 1,300 bytes of an entry of 55. Compiled again it takes 5.3 to 7.1.
// Below 64 KiB a file holds too few entries to matter, and a Language
// is compiled once.
const compileAgainFrom = 64 << 10

// minMessage is the least --max-message-bytes: an initialize request
// alone is a few hundred bytes.
const minMessage = 1 << 10

// Serve serves every Language of p.PDL over MCP, on s's standard input
// and output or over streamable HTTP, until the client leaves, ctx ends
// or an interrupt or SIGTERM arrives; its log lines go to standard
// error. Its error carries the exit code (verb.Code): 2 for usage
// errors, a PDL that does not compile and a server that cannot start.
func Serve(ctx context.Context, p Params, s verb.Streams) error {
	name := p.PDL
	// Flags are checked before the PDL is compiled, which can take a while.
	if p.HTTP != "" && p.Principal != "" {
		return verb.Usage("--principal is for stdio; over --http the bearer token names the principal")
	}
	if len(p.AllowOrigins) > 0 && p.HTTP == "" {
		return verb.Usage("--allow-origin is for --http: over stdio no browser can reach the server")
	}
	if p.HTTP != "" {
		// The address's form is checked before the PDL is compiled; that
		// it can be listened on, before serve says it is serving.
		if _, _, err := net.SplitHostPort(p.HTTP); err != nil {
			return addrError(p.HTTP, err)
		}
	}
	if p.MaxSessionsSet && p.HTTP == "" {
		return verb.Usage("--max-sessions is for --http: over stdio there is one session, the connection")
	}
	if p.MaxSessionsSet && p.MaxSessions < 1 {
		return verb.Usage("--max-sessions %d: give at least 1", p.MaxSessions)
	}
	for i, o := range p.AllowOrigins {
		norm, err := mcpserver.ParseOrigin(o)
		if err != nil {
			return verb.Usage("--allow-origin %v", err)
		}
		p.AllowOrigins[i] = norm
	}
	if p.Watch && p.WatchInterval <= 0 {
		return verb.Usage("--watch-interval must be more than zero, such as 300ms or 2s")
	}
	// Without --watch the interval would be ignored, and the user who
	// gave it would wait for reloads that never come.
	if !p.Watch && p.IntervalSet {
		return verb.Usage("--watch-interval is how often --watch looks for changes; add --watch")
	}
	retain, ok := bytesize.Parse(p.RetainMemory)
	if !ok {
		return verb.Usage("--retain-memory %q: give a size such as 64MiB, 512KiB or 1GiB", p.RetainMemory)
	}
	var maxMessage int64 // MessageBound, once the PDL is compiled
	if p.MaxMessage != "" {
		if maxMessage, ok = bytesize.Parse(p.MaxMessage); !ok || maxMessage < minMessage {
			return verb.Usage("--max-message-bytes %q: give a size of at least 1KiB, such as 16MiB or 64MiB", p.MaxMessage)
		}
	}
	logw := s.Err
	res, err := verb.LoadPDL(logw, name, "serve", false, report.DefaultMaxPerRule)
	if err != nil {
		return err
	}
	if err := res.Server.CheckPrincipal(p.Principal); err != nil {
		return verb.Usage("%v", err)
	}
	fi, err := os.Stat(name)
	again := err == nil && fi.Size() >= compileAgainFrom
	var read map[string][sha256.Size]byte // what the conformance check judged
	if again {
		read = digests(res.Sources)
	}
	conform := p.conformance(name, res, again)
	if again {
		// The conformance check held the compiled Language beside the
		// snapshot it linted and lint's tree of it: 16 bytes a byte of a
		// generated catalog of 40,000 entries. It let go of the Language
		// once the snapshot was written, as lint does, and the engine is
		// built from a second compile (docs/performance.md, "serve's
		// loading a phase at a time").
		if res, err = verb.LoadPDL(logw, name, "serve", false, report.DefaultMaxPerRule); err != nil {
			return err
		}
		if err := res.Server.CheckPrincipal(p.Principal); err != nil {
			return verb.Usage("%v", err)
		}
		if !maps.Equal(digests(res.Sources), read) {
			// A file changed between the two reads (an editor's save):
			// judge what is served, holding it this once.
			conform = p.conformance(name, res, false)
		}
	}
	reload.LogNotices(logw, conform)
	if maxMessage == 0 {
		maxMessage = MessageBound(res.Server)
	}
	// A spill that fails turns serve into one with --no-spill; the
	// operator hears why once, and clients from each refusal.
	spillFailed := func(err error) {
		fmt.Fprintf(logw, "pilotage serve: Runs kept for their Session past --retain-memory %s cannot go to a temporary file: %v; "+
			"from now on an execute whose Run would be kept past that memory is refused with resource_limit, as with --no-spill; "+
			"give TMPDIR a writable directory with free space, or a larger --retain-memory, and restart serve\n", p.RetainMemory, err)
	}
	eng, err := verb.NewEngine(res.Server, engine.Options{DataDir: p.Data, Retain: runstore.Limits{Memory: retain, NoSpill: p.NoSpill, OnSpillFailure: spillFailed},
		NoPrincipalHint: p.noPrincipalHint})
	if err != nil {
		return err
	}
	defer eng.Close()
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	// No time on log lines: an MCP host that captures stderr stamps them.
	logger := slog.New(slog.NewTextHandler(logw, &slog.HandlerOptions{Level: slog.LevelWarn,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey && len(groups) == 0 {
				return slog.Attr{}
			}
			return a
		}}))
	// A body edited while the server was down (with --data) is drifted
	// from the start; the operator hears it here, not from a client.
	reload.LogNotices(logw, eng.ChangedBodies())
	// Without --principal a stdio client sees no entry of a PDL with
	// principals; the client's user hears why, not only this log.
	var notices []string
	if note := res.Server.NoPrincipalNote(); note != "" && p.HTTP == "" && p.Principal == "" {
		notices = append(notices, note)
		fmt.Fprintf(logw, "pilotage serve: %s\n", note)
	}
	srv, err := mcpserver.New(ctx, eng, mcpserver.Options{Principal: p.Principal, Logger: logger, Version: p.Version, Notices: notices, AllowOrigins: p.AllowOrigins, MaxMessageBytes: maxMessage, MaxSessions: p.MaxSessions})
	if err != nil {
		return verb.Usage("%v", err)
	}
	if p.Watch {
		tokens := res.Server.Tokens()
		reload.Watch(ctx, name, res, reload.Options{Every: p.WatchInterval, Log: logw, Also: p.WatchAlso, Swap: func(r *compile.Result) ([]string, error) {
			if p.HTTP != "" && !maps.Equal(r.Server.Tokens(), tokens) {
				// HTTP checks the bearer tokens serve started with: a
				// definition whose tokens differ would serve its
				// principals under the old ones, or none at all.
				return nil, errors.New("the principals' tokens changed, and HTTP authenticates with those serve started with; restart serve to use the new ones")
			}
			if p.HTTP == "" {
				// The stdio client acts as the principal serve started
				// with: a definition without it, or one that declares
				// principals when serve has none, shows it no entry.
				if r.Server.CheckPrincipal(p.Principal) != nil {
					return nil, fmt.Errorf("the PDL no longer declares principal %s, as whom serve acts for its client; restart serve with --principal to act as another", report.Clip(p.Principal))
				}
				if p.Principal == "" && len(r.Server.Principals) > 0 && len(res.Server.Principals) == 0 {
					return nil, errors.New("the PDL now declares principals, and serve runs with no principal, so its client would see no entry; restart serve with --principal NAME")
				}
			}
			if err := eng.Reload(r.Server); err != nil {
				return nil, err
			}
			if p.MaxMessage == "" {
				// The Languages' limits may have changed with them.
				srv.SetMaxMessageBytes(MessageBound(r.Server))
			}
			notices := append(eng.ChangedBodies(), p.conformance(name, r, false)...)
			return notices, srv.Refresh(ctx)
		}})
	}
	if p.Loaded != nil {
		p.Loaded()
	}
	if p.HTTP == "" {
		who := "with no principal"
		if p.Principal != "" {
			who = "as principal " + p.Principal
		}
		fmt.Fprintf(logw, "pilotage serve: serving %s on stdio %s\n", served(name, res.Server), who)
		if verb.StdinIsTerminal(s) {
			// Typed by hand, serve looks hung: say who talks to it.
			fmt.Fprintln(logw, "pilotage serve: standard input is a terminal; an MCP client starts this command and speaks JSON-RPC on its standard input (try npx @modelcontextprotocol/inspector, docs/serve.md); Ctrl-D ends")
		}
		if err := srv.ServeIO(ctx, s.In, s.Out); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
			return verb.Usage("serving stdio: %v", err)
		}
		return nil
	}
	ln, err := net.Listen("tcp", p.HTTP)
	if err != nil {
		return addrError(p.HTTP, err)
	}
	fmt.Fprintf(logw, "pilotage serve: serving %s over HTTP, each request as the principal its bearer token names\n", served(name, res.Server))
	return serveHTTP(ctx, logw, p.HTTP, ln, srv, res.Server.Tokens())
}

// addrError is the usage error of an --http address that cannot be
// listened on. A port alone (--http 8080) is the likeliest slip: the
// hint gives the address that serves it on this machine.
func addrError(addr string, err error) error {
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		// The address was well formed: something else listens there.
		return verb.Usage("--http %s: %v: another process listens there; stop it, or give another port (port 0 picks a free one)", addr, listenErr(err))
	case strings.Contains(addr, "://"):
		hostPort := addr[strings.Index(addr, "://")+3:]
		return verb.Usage("--http %s: give HOST:PORT without a scheme, such as %s", addr, strings.TrimSuffix(hostPort, "/"))
	}
	example := "127.0.0.1:8080 (port 0 picks a free one)"
	if _, perr := strconv.ParseUint(addr, 10, 16); perr == nil {
		example = "127.0.0.1:" + addr + " for port " + addr + " on this machine only"
	}
	return verb.Usage("--http %s: %v; give HOST:PORT, such as %s", addr, listenErr(err), example)
}

// noPrincipalHint is the hint of each name a client acting as no
// principal writes (engine.Options.NoPrincipalHint). The CLI's hint
// names the PDL's principals and --principal, for the operator who
// runs the command; a client cannot give a flag to serve. On stdio it
// is told, without the principals' names, that this is the operator's
// choice (its user hears the whole note at initialize). Over HTTP such a
// client is anyone who reaches the server, told nothing of the
// principals or how the server was started.
func (p *Params) noPrincipalHint(*language.Server) string {
	if p.HTTP != "" {
		return ""
	}
	return "this server runs with no principal, so every name is unknown to this caller; its operator chooses one with --principal"
}

// served says what serve serves, for its start-up line on standard
// error: the Languages and the file they come from. A client cannot
// tell which definition or principal a server was started with, and an
// MCP host that starts it shows only its standard error.
func served(name string, srv *language.Server) string {
	return fmt.Sprintf("%s from %s", languageIDs(srv), name)
}

// languageIDs are the ids of srv's Languages, as serve's log names them.
func languageIDs(srv *language.Server) string {
	ids := make([]string, len(srv.Languages))
	for i, l := range srv.Languages {
		ids[i] = l.ID
	}
	return strings.Join(ids, ", ")
}

// conformance is serve's warnings when lint finds errors in res, the
// definition name compiled, as pilotage lint FILE.pdl would find them
// (under the same pilotage.yaml, read again each time), or none when it
// finds none. Serve still serves such a definition: clients and conform
// are tested against broken servers too. It costs one read of
// pilotage.yaml and one lint of the snapshot, at start and on each
// reload, nothing per request.
//
// With release it lets go of res.Server once the snapshot is written
// (res.Server is nil after), so that lint does not run beside the
// compiled Language.
func (p *Params) conformance(name string, res *compile.Result, release bool) []string {
	var notices []string
	var apply func(*report.Report)
	if p.Rules != nil {
		var err error
		if apply, err = p.Rules(); err != nil {
			notices = append(notices, fmt.Sprintf("warning: %v", err),
				"warning: the configuration above has errors, so serve judges conformance without its settings until it is fixed")
		}
	}
	li, err := pdllint.Prepare(name, res)
	ids := languageIDs(res.Server)
	if release {
		res.Server = nil
	}
	var rep *report.Report
	if err == nil {
		rep, err = verb.Conformance(name, li, res, report.DefaultMaxPerRule, apply, nil)
	}
	if err != nil {
		return append(notices, fmt.Sprintf("warning: %s could not be linted: %v", ids, err))
	}
	if rep.Summary.Errors == 0 {
		return notices
	}
	var rules []string
	for _, f := range rep.Findings {
		if f.Severity == report.Error && !f.Suppressed() && !slices.Contains(rules, f.Rule) {
			rules = append(rules, f.Rule)
		}
	}
	them := "them"
	if rep.Summary.Errors == 1 {
		them = "it"
	}
	return append(notices, fmt.Sprintf("warning: %s: %s (%s); pilotage lint %s lists %s",
		verb.Verdict(rep, ids), report.Count(rep.Summary.Errors, "lint error"), strings.Join(rules, ", "), name, them))
}

// serveHTTP serves srv on ln, listening on addr as --http gave it.
func serveHTTP(ctx context.Context, logw io.Writer, addr string, ln net.Listener, srv *mcpserver.Server, toks map[string]string) error {
	if len(toks) == 0 {
		fmt.Fprintln(logw, "pilotage serve: the PDL declares no principal with a token: HTTP is not authenticated")
	}
	if w := exposed(addr, ln.Addr()); w != "" {
		fmt.Fprintf(logw, "pilotage serve: warning: %s: other machines can reach this server; give 127.0.0.1:PORT to serve this machine only\n", w)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", srv.HTTPHandler(toks))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	closeSilentOnShutdown(hs)
	// The real address (a :0 port resolved) on one line, for scripts.
	fmt.Fprintf(logw, "pilotage serve: listening on http://%s/mcp\n", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return verb.Usage("serving HTTP: %v", err)
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = hs.Shutdown(shutdown)
	return nil
}

// closeSilentOnShutdown makes hs's Shutdown close at once the
// connections on which no request has begun. Shutdown closes idle
// connections and waits for busy ones, but counts a connection that has
// sent nothing yet as busy for its first 5 s, so one a client opened and
// left unused held serve's stop for 5 s: Go's HTTP client opens such
// connections when it dials for a request another connection then takes.
// They are closed as idle connections are: a request that has not begun
// when the server stops is not served.
func closeSilentOnShutdown(hs *http.Server) {
	var mu sync.Mutex
	silent := map[net.Conn]bool{}
	hs.ConnState = func(c net.Conn, st http.ConnState) {
		mu.Lock()
		defer mu.Unlock()
		if st == http.StateNew {
			silent[c] = true
		} else {
			delete(silent, c)
		}
	}
	hs.RegisterOnShutdown(func() {
		mu.Lock()
		defer mu.Unlock()
		for c := range silent {
			c.Close()
		}
	})
}

// exposed says why the server listening on a (asked for as addr) is
// reachable from other machines, or "" when it listens on loopback only.
func exposed(addr string, a net.Addr) string {
	ta, ok := a.(*net.TCPAddr)
	switch {
	case !ok || ta.IP.IsLoopback():
		return ""
	case ta.IP.IsUnspecified():
		return addr + " listens on every network interface"
	}
	return addr + " is not a loopback address"
}

// listenErr is why net.Listen failed, without the Go operations it wraps
// the reason in ("listen tcp: address x: missing port in address",
// "listen tcp 127.0.0.1:80: bind: permission denied"), which name the
// address a second time and tell a user nothing.
func listenErr(err error) error {
	var oe *net.OpError
	if errors.As(err, &oe) {
		err = oe.Err
	}
	var se *os.SyscallError
	if errors.As(err, &se) {
		return se.Err
	}
	var ae *net.AddrError
	if errors.As(err, &ae) {
		return errors.New(ae.Err)
	}
	return err
}
