// Package mcpserver is the project's MCP binding (shared/spec/binding.md)
// over any service.Service: it declares the extension in initialize,
// publishes pilotage_discover and one tool per operation per Language with
// input and output schemas, the manifest and guides as resources, maps
// responses and request errors onto tool results, and turns MCP sessions
// and bearer tokens into the Session and principal of §3.7 and §10.3.
package mcpserver

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/model/binding"
	"github.com/pilotage-dev/pilotage/workbench/service"
)

// Options configure a Server.
type Options struct {
	// Principal is the caller of connections that carry no bearer token
	// (stdio, in-memory): "the principal the server was started as".
	Principal string
	// Logger receives the SDK's and the binding's logs; nil discards them.
	// On stdio it must not write to standard output.
	Logger *slog.Logger
	// Version is the MCP implementation version reported in initialize.
	Version string
	// Notices are said to every client of Connect and ServeIO once it is
	// initialized, as MCP log messages of level warning: what the
	// operator's log says about the Session (no --principal, so an empty
	// catalog) must reach the user looking at the client, not only
	// standard error.
	Notices []string
	// AllowOrigins are the origins (scheme://host[:port], as ParseOrigin
	// returns them) besides loopback ones whose browser pages may call
	// the HTTP handler (origin.go).
	AllowOrigins []string
	// MaxMessageBytes bounds each message read, a stdio line or an HTTP
	// request body; 0 is DefaultMaxMessageBytes.
	MaxMessageBytes int64
	// MaxSessions bounds the HTTP sessions open at once; 0 is
	// DefaultMaxSessions.
	MaxSessions int
}

// DefaultMaxSessions is how many HTTP sessions serve keeps open at once
// unless told otherwise. Each holds about 13 KB, and lives until its
// client ends it or it is idle for SessionIdleTimeout, so without a bound
// a client holding a token could open sessions until memory ran out.
const DefaultMaxSessions = 1000

// Server is one MCP server exposing a service.Service.
type Server struct {
	svc  service.Service
	opts Options
	mcp  *mcp.Server
	defs map[string]toolSchemas

	// maxBytes is the largest message read, Options.MaxMessageBytes or
	// DefaultMaxMessageBytes until SetMaxMessageBytes changes it.
	maxBytes atomic.Int64

	mu        sync.Mutex
	tools     map[string]string // names currently published, each to its definition's JSON
	resources map[string]string // URIs currently published, each to its definition's JSON
	sessions  map[*mcp.ServerSession]string
	ended     sync.WaitGroup // session watchers still to call EndSession
}

// New builds the MCP server for svc and publishes its tools and resources.
func New(ctx context.Context, svc service.Service, opts Options) (*Server, error) {
	defs, err := loadTools()
	if err != nil {
		return nil, err
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	opts.Logger = quietLogs(opts.Logger)
	m, err := svc.Discover(ctx)
	if err != nil {
		return nil, fmt.Errorf("discover: %w", err)
	}
	// serverInfo names the server the manifest names (§5.1 server), with
	// its version: a name from the PDL beside pilotage's own version
	// ("homeflow-demo devel") paired two things.
	impl := &mcp.Implementation{Name: "pilotage", Version: opts.Version}
	if m.Server != nil && m.Server.Name != "" {
		impl.Name, impl.Version = m.Server.Name, cmp.Or(m.Server.Version, opts.Version)
	}
	// A non-nil Capabilities drops the SDK's historical default logging
	// capability: this server sends MCP log messages only for Notices.
	caps := &mcp.ServerCapabilities{}
	if len(opts.Notices) > 0 {
		caps.Logging = &mcp.LoggingCapabilities{}
	}
	caps.AddExtension(binding.ExtensionID, binding.ExtensionSettings())
	s := &Server{
		svc:       svc,
		opts:      opts,
		defs:      defs,
		tools:     map[string]string{},
		resources: map[string]string{},
		sessions:  map[*mcp.ServerSession]string{},
	}
	s.SetMaxMessageBytes(opts.MaxMessageBytes)
	s.mcp = mcp.NewServer(impl, &mcp.ServerOptions{Capabilities: caps, Logger: opts.Logger, InitializedHandler: s.tell})
	if err := s.Refresh(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// MCP returns the underlying go-sdk server, to connect transports to.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// noticeLevel is the level of Notices, and the log level a Session of
// Connect starts at: go-sdk sends no log message before the client sets
// a level (logging/setLevel), which a client that does not know about
// the notice would never do.
const noticeLevel mcp.LoggingLevel = "warning"

// Connect serves one Session on t, telling it the Notices once it is
// initialized.
func (s *Server) Connect(ctx context.Context, t mcp.Transport) (*mcp.ServerSession, error) {
	var opts *mcp.ServerSessionOptions
	if len(s.opts.Notices) > 0 {
		opts = &mcp.ServerSessionOptions{State: &mcp.ServerSessionState{LogLevel: noticeLevel}}
	}
	return s.mcp.Connect(ctx, t, opts)
}

// tell sends the Notices to a Session that has just been initialized. A
// client that set its level above warning (error) does not hear them: it
// asked not to.
func (s *Server) tell(_ context.Context, req *mcp.InitializedRequest) {
	for _, n := range s.opts.Notices {
		// Not the request's context: under the newest protocol it carries
		// the request's own log level, usually none.
		if err := req.Session.Log(context.Background(), &mcp.LoggingMessageParams{Level: noticeLevel, Logger: "pilotage", Data: n}); err != nil {
			s.opts.Logger.Warn("notice not sent", "error", err)
		}
	}
}

// Refresh re-reads the manifest and guide index and republishes tools and
// resources, so a reloaded definition shows its new Languages and guides
// (clients are told through list_changed notifications).
func (s *Server) Refresh(ctx context.Context) error {
	m, err := s.svc.Discover(ctx)
	if err != nil {
		return fmt.Errorf("discover: %w", err)
	}
	type pub struct {
		tool    *mcp.Tool
		handler mcp.ToolHandler
	}
	want := []pub{}
	d := s.defs["discover"]
	want = append(want, pub{tool(binding.DiscoverTool, d, true), s.discoverHandler()})
	caller := service.Caller{Principal: s.opts.Principal}
	type res struct {
		r *mcp.Resource
		h mcp.ResourceHandler
	}
	resources := []res{{&mcp.Resource{URI: binding.ManifestURI, Name: "manifest", Title: "Pilotage manifest",
		Description: "The Pilotage manifest (§5.1), as pilotage_discover returns it.", MIMEType: binding.JSONMediaType},
		s.manifestResource()}}
	for _, entry := range m.Languages {
		for _, op := range binding.Ops {
			name := address(entry, op)
			if name == "" {
				continue
			}
			def, err := s.defs[string(op)].forLanguage(entry)
			if err != nil {
				return err
			}
			want = append(want, pub{tool(name, def, op != binding.Execute), s.opHandler(entry.ID, op, def)})
		}
		guides, err := s.guideIndex(ctx, caller, entry.ID)
		if err != nil {
			return err
		}
		for _, g := range guides {
			mt := g.MediaType
			if mt == "" {
				mt = "text/markdown"
			}
			resources = append(resources, res{&mcp.Resource{URI: binding.GuideURI(entry.ID, g.ID), Name: g.ID, Title: g.Title,
				Description: g.Description, MIMEType: mt, Size: int64(g.SizeBytes)}, s.guideResource(entry.ID, g.ID, mt)})
		}
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	s.tools = republish(s.tools, want, func(p pub) (string, any) { return p.tool.Name, p.tool },
		s.mcp.RemoveTools, func(p pub) { s.mcp.AddTool(p.tool, p.handler) })
	s.resources = republish(s.resources, resources, func(r res) (string, any) { return r.r.URI, r.r },
		s.mcp.RemoveResources, func(r res) { s.mcp.AddResource(r.r, r.h) })
	return nil
}

// republish brings the published set to want: it removes what is no
// longer wanted and adds what is new or defined differently, and returns
// the new published set. It leaves an unchanged definition alone, since
// go-sdk tells every client the list changed on each add: a --watch
// reload that changed nothing clients see sends no list_changed.
func republish[T any](published map[string]string, want []T, def func(T) (string, any), remove func(...string), add func(T)) map[string]string {
	next := make(map[string]string, len(want))
	var changed []T
	for _, w := range want {
		key, d := def(w)
		b, err := json.Marshal(d)
		if err != nil {
			b = nil // not comparable: publish it again
		}
		next[key] = string(b)
		if old, ok := published[key]; !ok || b == nil || old != string(b) {
			changed = append(changed, w)
		}
	}
	var stale []string
	for key := range published {
		if _, ok := next[key]; !ok {
			stale = append(stale, key)
		}
	}
	remove(stale...)
	for _, w := range changed {
		add(w)
	}
	return next
}

// address is the operation address the manifest publishes for op, ""
// when the Language does not declare it (§4.3 rule 7).
func address(e pilotage.LanguageEntry, op binding.Op) string {
	switch op {
	case binding.Learn:
		return e.Guides
	case binding.Lookup:
		return e.Catalog
	case binding.Validate:
		return e.Loop.Validate
	case binding.Execute:
		return e.Loop.Execute
	case binding.Trace:
		return e.Loop.Trace
	}
	return ""
}

// tool builds a tool. Every operation but execute is side-effect free
// (§6.1–§6.4, §6.6) and says so; execute keeps MCP's conservative defaults.
func tool(name string, d toolSchemas, readOnly bool) *mcp.Tool {
	t := &mcp.Tool{Name: name, Description: d.description, InputSchema: d.input, OutputSchema: d.output}
	if readOnly {
		t.Annotations = &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true}
	}
	return t
}

func (s *Server) guideIndex(ctx context.Context, c service.Caller, lang string) ([]pilotage.Guide, error) {
	v, err := s.svc.Learn(ctx, c, lang, pilotage.LearnRequest{})
	if err != nil {
		return nil, fmt.Errorf("learn %s: %w", lang, err)
	}
	idx, ok := v.(*pilotage.LearnIndex)
	if !ok {
		return nil, fmt.Errorf("learn %s: the index form answered %T", lang, v)
	}
	return idx.Guides, nil
}

// caller is the principal and Session of a request: the bearer token's
// principal over HTTP, the configured one otherwise; one Session per MCP
// session.
func (s *Server) caller(ss *mcp.ServerSession, extra *mcp.RequestExtra) service.Caller {
	c := service.Caller{Principal: s.opts.Principal}
	if extra != nil && extra.TokenInfo != nil {
		c.Principal = extra.TokenInfo.UserID
	}
	if ss != nil {
		c.Session = s.session(ss)
	}
	return c
}

// session names an MCP session for the service and, the first time it is
// seen, arranges for EndSession when it closes, so retention "session"
// ends with the stdio connection or the Mcp-Session-Id (binding.md).
func (s *Server) session(ss *mcp.ServerSession) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id, ok := s.sessions[ss]; ok {
		return id
	}
	id := ss.ID()
	if id == "" {
		// stdio and in-memory sessions have no id of their own.
		id = rand.Text()
	}
	s.sessions[ss] = id
	s.ended.Add(1)
	go func() {
		defer s.ended.Done()
		_ = ss.Wait()
		s.mu.Lock()
		delete(s.sessions, ss)
		s.mu.Unlock()
		s.svc.EndSession(id)
		s.opts.Logger.Info("session ended", "session", id)
	}()
	return id
}

// WaitSessions blocks until every session that has closed has been ended
// in the service; callers use it after their transports are done.
func (s *Server) WaitSessions() { s.ended.Wait() }

// result is a processed operation: isError false, the response as
// structuredContent and the same JSON as one text block (binding.md).
func result(v any) *mcp.CallToolResult {
	raw, err := json.Marshal(v)
	if err != nil {
		return errorResult(&pilotage.RequestError{Kind: pilotage.ErrInternal, Message: "encoding the response: " + err.Error()})
	}
	return &mcp.CallToolResult{StructuredContent: json.RawMessage(raw), Content: []mcp.Content{&mcp.TextContent{Text: string(raw)}}}
}

// errorResult is a request error (§8): isError true, the envelope as
// structuredContent and text. Errors that are not request errors are the
// service's internal failures.
func errorResult(err error) *mcp.CallToolResult {
	var re *pilotage.RequestError
	if !errors.As(err, &re) {
		re = &pilotage.RequestError{Kind: pilotage.ErrInternal, Message: err.Error()}
	}
	raw, _ := json.Marshal(pilotage.RequestErrorEnvelope{Error: *re})
	return &mcp.CallToolResult{IsError: true, StructuredContent: json.RawMessage(raw), Content: []mcp.Content{&mcp.TextContent{Text: string(raw)}}}
}
