// Package lspserve is the document side of a language server: it wires
// glsp's LSP handler to a jsonrpc2 stream, keeps the open documents, and
// analyses each off the request loop, recovering from panics.
package lspserve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/url"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/sourcegraph/jsonrpc2"
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/pilotage-dev/pilotage/internal/base/textpos"
)

// MaxLive is the largest document analysed live: past it an editor gets
// one diagnostic saying so (run `pilotage lint`), not a server busy for
// seconds on every keystroke.
const MaxLive = 4 << 20

// Options configure a server.
type Options struct {
	// Log receives what the server cannot tell the client (stderr).
	Log io.Writer
	// Analyse makes the diagnostics and facts of a document's text; it
	// runs beside the request loop, and a panic in it becomes a
	// diagnostic.
	Analyse func(path, uri string, text []byte) *Analysis
	// Memory, when set, is told the bytes of the documents under
	// analysis whenever they change, 0 once none is, for a soft memory
	// limit while analyses run (the CLI's, as lint's of a file).
	Memory func(analysing int64)
}

// Server holds the open documents; analysis runs beside the request
// loop, so no request waits for one.
type Server struct {
	opt    Options
	log    *log.Logger
	mu     sync.Mutex
	docs   map[string]*Document
	notify glsp.NotifyFunc
	conn   *jsonrpc2.Conn
	wg     sync.WaitGroup
	// held are the params of large didOpen and didChange messages, read
	// before jsonrpc2 reads the rest (hold).
	held  map[int64]*docParams
	heldN int64
	// memMu orders the calls of opt.Memory; analysing is the bytes of
	// the documents under analysis.
	memMu     sync.Mutex
	analysing int64
	// shutdown is set once the client asked to shut down, exited once it
	// sent exit, and early when it exited without asking.
	shutdown, exited, early bool
}

// ErrExitWithoutShutdown is Serve's error when the client sent exit
// before shutdown: the LSP specification ends the server with status 1
// then, so a client can tell a crash-like exit from an orderly one.
var ErrExitWithoutShutdown = errors.New("the client sent exit before shutdown")

// document is one open file: its latest text and the latest analysis
// made of it. gen counts changes, so an analysis of an older text is
// never published over a newer one.
type Document struct {
	URI, Path string
	version   int32
	text      []byte
	gen       uint64
	running   bool
	dirty     bool
	result    *Analysis
	closed    bool
}

// Analysis is what one run over a document found.
type Analysis struct {
	Diags map[string][]protocol.Diagnostic // by URI
	Lens  []protocol.CodeLens
	// Facts serve requests that need more than the text (a program's
	// Language and catalog).
	Facts any
}

// New returns a server with no documents open.
func New(opt Options) *Server {
	if opt.Log == nil {
		opt.Log = io.Discard
	}
	return &Server{opt: opt, log: log.New(opt.Log, "pilotage lsp: ", 0), docs: map[string]*Document{}, held: map[int64]*docParams{}}
}

// Serve answers the LSP requests h binds on rwc until the client exits
// or the stream ends. Every message is dispatched by jsonrpc2 and glsp;
// this adds panic recovery, the server's notify, and framing that
// answers an unreadable message and reads on (resync).
func (s *Server) Serve(ctx context.Context, rwc io.ReadWriteCloser, h *protocol.Handler) error {
	var conn *jsonrpc2.Conn
	serve := func(ctx context.Context, c *jsonrpc2.Conn, req *jsonrpc2.Request) (res any, err error) {
		gctx := &glsp.Context{Method: req.Method,
			Notify: func(method string, params any) {
				if err := c.Notify(ctx, method, params); err != nil {
					s.log.Printf("notify %s: %v", method, err)
				}
			}}
		if req.Params != nil {
			gctx.Params = *req.Params
		}
		s.mu.Lock()
		if s.notify == nil {
			s.notify = gctx.Notify
			s.conn = c
		}
		s.mu.Unlock()
		// A bug in one request's handler answers that request with an
		// error; the server goes on.
		defer func() {
			if r := recover(); r != nil {
				s.log.Printf("%s panicked: %v\n%s", req.Method, r, debug.Stack())
				res, err = nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: fmt.Sprintf("pilotage lsp: %s failed: %v", req.Method, r)}
			}
		}()
		// The documents' texts are read here, not through glsp (docParams).
		switch req.Method {
		case protocol.MethodTextDocumentDidOpen, protocol.MethodTextDocumentDidChange:
			p, err := s.params(gctx.Params)
			if err == nil && req.Method == protocol.MethodTextDocumentDidOpen {
				err = s.didOpen(p)
			} else if err == nil {
				err = s.didChange(p)
			}
			if err != nil {
				s.log.Printf("%s: %v", req.Method, err)
			}
			return nil, nil
		}
		// initialize is sent once (LSP 3.17); glsp would answer a second
		// again, as if the session began anew.
		if req.Method == protocol.MethodInitialize && h.IsInitialized() {
			return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidRequest, Message: "initialize was already received"}
		}
		r, validMethod, validParams, herr := h.Handle(gctx)
		switch {
		case req.Method == protocol.MethodShutdown:
			s.mu.Lock()
			s.shutdown = true
			s.mu.Unlock()
		case req.Method == protocol.MethodExit:
			s.mu.Lock()
			s.early, s.exited = !s.shutdown, true
			s.mu.Unlock()
			return nil, c.Close()
		case !validMethod:
			if req.Notif {
				return nil, nil
			}
			return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "method not supported: " + req.Method}
		case !validParams:
			msg := "invalid params"
			if herr != nil {
				msg += ": " + herr.Error()
			}
			return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: msg}
		case herr != nil:
			return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidRequest, Message: herr.Error()}
		}
		return r, nil
	}
	var broken atomic.Pointer[FramingError]
	stream := resync(rwc, s.log, &broken, s.hold)
	conn = jsonrpc2.NewConn(ctx, stream, jsonrpc2.HandlerWithError(serve), jsonrpc2.SetLogger(s.log))
	select {
	case <-conn.DisconnectNotify():
	case <-ctx.Done():
		conn.Close()
	}
	s.wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	switch fe := broken.Load(); {
	case s.early:
		return ErrExitWithoutShutdown
	case fe != nil && !s.exited:
		return fe
	}
	return nil
}

// PathOf turns a file: URI into a path; other schemes keep their URI as
// a name (an unsaved buffer still gets diagnostics).
func PathOf(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return uri
	}
	return filepath.FromSlash(u.Path)
}

// URIOf is PathOf's inverse for the files findings name.
func URIOf(path string) string {
	if strings.Contains(path, "://") {
		return path
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
}

// didOpen keeps a newly opened document and analyses it.
func (s *Server) didOpen(p *docParams) error {
	s.mu.Lock()
	d := &Document{URI: p.TextDocument.URI, Path: PathOf(p.TextDocument.URI), version: p.TextDocument.Version, text: p.TextDocument.Text}
	if d.text == nil {
		d.text = []byte{}
	}
	if old := s.docs[d.URI]; old != nil {
		old.closed = true
	}
	s.docs[d.URI] = d
	s.mu.Unlock()
	s.schedule(d)
	return nil
}

// didChange applies a change (whole text, or a range) and analyses the
// new text.
func (s *Server) didChange(p *docParams) error {
	s.mu.Lock()
	d := s.docs[p.TextDocument.URI]
	if d == nil {
		s.mu.Unlock()
		return fmt.Errorf("%s is not open", p.TextDocument.URI)
	}
	for _, c := range p.ContentChanges {
		// Full sync is what the server asks for; a client sending a
		// range anyway gets it applied.
		if c.Range == nil {
			d.text = c.Text
			continue
		}
		t := textpos.New(d.text)
		from, to := t.Offset(c.Range.Start.Line, c.Range.Start.Character), t.Offset(c.Range.End.Line, c.Range.End.Character)
		if to < from {
			to = from
		}
		d.text = append(append(append([]byte{}, d.text[:from]...), c.Text...), d.text[to:]...)
	}
	d.version = p.TextDocument.Version
	d.gen++
	s.mu.Unlock()
	s.schedule(d)
	return nil
}

// DidClose forgets a document and clears its diagnostics.
func (s *Server) DidClose(p *protocol.DidCloseTextDocumentParams) error {
	s.mu.Lock()
	d := s.docs[p.TextDocument.URI]
	delete(s.docs, p.TextDocument.URI)
	if d != nil {
		d.closed = true
	}
	notify := s.notify
	s.mu.Unlock()
	if d != nil && notify != nil {
		notify(protocol.ServerTextDocumentPublishDiagnostics, protocol.PublishDiagnosticsParams{URI: d.URI, Diagnostics: []protocol.Diagnostic{}})
	}
	return nil
}

// TextOf is the text of the open document at path, as the editor has it.
func (s *Server) TextOf(path string) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range s.docs {
		if d.Path == path {
			return d.text, true
		}
	}
	return nil, false
}

// Reanalyse analyses again the open documents whose path match accepts,
// for a change outside their text (the settings that govern them).
func (s *Server) Reanalyse(match func(path string) bool) {
	s.mu.Lock()
	var docs []*Document
	for _, d := range s.docs {
		if match(d.Path) {
			docs = append(docs, d)
		}
	}
	s.mu.Unlock()
	for _, d := range docs {
		s.schedule(d)
	}
}

// Request sends the client a request without waiting for its answer: a
// handler that waited would hold up the loop that reads the answer. An
// error answer is logged.
func (s *Server) Request(method string, params any) {
	s.mu.Lock()
	conn := s.conn
	s.mu.Unlock()
	if conn == nil {
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		var res any
		if err := conn.Call(context.Background(), method, params, &res); err != nil {
			s.log.Printf("%s: %v", method, err)
		}
	}()
}

// Doc returns the open document at uri, with its text at this moment.
func (s *Server) Doc(uri string) (*Document, []byte, *Analysis, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.docs[uri]
	if d == nil {
		return nil, nil, nil, fmt.Errorf("%s is not open (didOpen it first)", uri)
	}
	return d, d.text, d.result, nil
}

// At is the open document of a request, its text, its latest analysis
// and the byte offset of the request's position.
func (s *Server) At(p protocol.TextDocumentPositionParams) (*Document, []byte, *Analysis, int, error) {
	d, text, res, err := s.Doc(p.TextDocument.URI)
	if err != nil {
		return nil, nil, nil, 0, err
	}
	return d, text, res, textpos.New(text).Offset(p.Position.Line, p.Position.Character), nil
}

// Live says whether requests should read a document: past MaxLive they
// answer nothing (its diagnostic says why).
func Live(text []byte) bool { return len(text) <= MaxLive }

// schedule analyses d off the request loop. One analysis per document
// runs at a time; changes during it cause one more run, of the newest
// text, and only the newest text's analysis is published.
func (s *Server) schedule(d *Document) {
	s.mu.Lock()
	if d.running {
		d.dirty = true
		s.mu.Unlock()
		return
	}
	d.running = true
	s.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			s.mu.Lock()
			text, gen, version := d.text, d.gen, d.version
			d.dirty = false
			s.mu.Unlock()
			res := s.safeAnalyse(d.Path, d.URI, text)
			s.mu.Lock()
			current := d.gen == gen && !d.closed
			if current {
				d.result = res
			}
			notify := s.notify
			again := d.dirty && !d.closed
			if !again {
				d.running = false
			}
			s.mu.Unlock()
			if current && notify != nil {
				s.publish(notify, d.URI, version, res)
			}
			if !again {
				return
			}
		}
	}()
}

// publish sends the diagnostics of an analysis: the document's own
// (always, so fixed problems disappear) and those in files it names.
func (s *Server) publish(notify glsp.NotifyFunc, uri string, version int32, res *Analysis) {
	if _, ok := res.Diags[uri]; !ok {
		res.Diags[uri] = []protocol.Diagnostic{}
	}
	for u, ds := range res.Diags {
		p := protocol.PublishDiagnosticsParams{URI: u, Diagnostics: ds}
		if u == uri {
			v := protocol.UInteger(version)
			p.Version = &v
		}
		notify(protocol.ServerTextDocumentPublishDiagnostics, p)
	}
}

// safeAnalyse runs the analysis a document's kind calls for; a panic in
// it becomes a diagnostic on the document, never a dead server.
func (s *Server) safeAnalyse(path, uri string, text []byte) (res *Analysis) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Printf("analysing %s panicked: %v\n%s", path, r, debug.Stack())
			res = &Analysis{Diags: map[string][]protocol.Diagnostic{uri: {ErrorDiag(fmt.Sprintf("pilotage lsp could not analyse this file (internal error: %v); run pilotage lint on it and report the bug", r))}}}
		}
	}()
	if len(text) > MaxLive {
		return &Analysis{Diags: map[string][]protocol.Diagnostic{uri: {ErrorDiag(fmt.Sprintf("this file is %d bytes; pilotage lsp analyses files up to %d bytes live, so run pilotage lint on it instead", len(text), MaxLive))}}}
	}
	defer s.Working(len(text))()
	return s.opt.Analyse(path, uri, text)
}

// Working counts n bytes as under analysis (Options.Memory) until the
// function it returns is called: a request that parses or compiles a
// document's whole text (hover, completion) runs under the analyses'
// memory limit.
func (s *Server) Working(n int) (done func()) {
	s.analysed(int64(n))
	return func() { s.analysed(-int64(n)) }
}

// analysed adds delta to the bytes under analysis and tells opt.Memory.
func (s *Server) analysed(delta int64) {
	if s.opt.Memory == nil {
		return
	}
	s.memMu.Lock()
	defer s.memMu.Unlock()
	s.analysing += delta
	s.opt.Memory(s.analysing)
}

// ErrorDiag is a diagnostic on the whole of a document's first line.
func ErrorDiag(msg string) protocol.Diagnostic {
	sev := protocol.DiagnosticSeverityError
	src := "pilotage"
	return protocol.Diagnostic{Severity: &sev, Source: &src, Message: msg}
}
