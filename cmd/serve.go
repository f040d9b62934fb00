package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/pilotage-dev/pilotage/internal/base/bytesize"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/workbench/compile"
	"github.com/pilotage-dev/pilotage/workbench/engine/runstore"
	"github.com/pilotage-dev/pilotage/workbench/mcpserver"
	"github.com/pilotage-dev/pilotage/workbench/reload"
)

type serveParams struct {
	http         string
	allowOrigins []string
	principal    string
	data         string
	watch        bool
	poll         time.Duration
	pollSet      bool // --watch-interval was given
	retainMem    string
	noSpill      bool
}

func newServeCmd() *cobra.Command {
	p := &serveParams{}
	c := &cobra.Command{
		Use:   "serve FILE.pdl",
		Short: "Serve a PDL definition as a Pilotage MCP server (stdio or streamable HTTP)",
		Long: `Serve every Language of a PDL file over MCP, as the project's binding
(docs/binding.md) says: the extension "dev.pilotage/pilotage" in initialize,
pilotage_discover, and one tool per operation per Language
(<prefix>_learn, _lookup, _validate, _execute, _trace), with the workbench
engine behind them.

By default the server speaks MCP on standard input and output (one client,
one Session); standard output carries only MCP messages and every log line
goes to standard error. A line of input that is not a JSON-RPC 2.0 message
is answered with a Parse error (-32700) or an Invalid Request (-32600), and
logged with its line number; the Session goes on. --principal names the
PDL principal the client acts as; left out on a PDL that declares
principals, the client is none of them and sees no catalog entry (serve
says so on standard error and, as an MCP log message, to the client at
initialize). With --http ADDR it serves streamable
HTTP at http://ADDR/mcp instead; each request must carry "Authorization:
Bearer <token>" with a token a PDL principal declares (401 otherwise), and
each Mcp-Session-Id is one Session. A PDL without principals is served on
HTTP without authentication.

--data DIR keeps runs of Languages whose retention is an ISO duration in
DIR, so they survive a restart; without it such Languages are served with
retention "session" (§6.6). A Run kept for its Session stays fetchable
until the Session ends: the first --retain-memory of them are held in
memory, the rest in a temporary file removed at exit; with --no-spill
nothing goes to disk and, once the memory is used, execute with store
is refused with resource_limit before the Run starts.

--watch recompiles the PDL and every file it names when one changes and
swaps the new definition in, so clients meet catalog_drift and
promotion_drift for real; a definition with errors is reported and the
old one kept. See docs/serve.md.

The PDL's errors are printed on standard error with their source lines;
` + pdlErrorsCap + `.

Exit status: 0 after a clean shutdown, 2 when the PDL has errors, the
flags are wrong, or the --http address or --data directory cannot be used.`,
		Example: `  pilotage serve langs/homeflow/homeflow.pdl --principal owner
  pilotage serve langs/homeflow/homeflow.pdl --http 127.0.0.1:8080 --data ./runs
  npx -y @modelcontextprotocol/inspector --cli pilotage serve langs/calc/calc.pdl --method tools/list`,
		Args: needArgs(1, 1, "one FILE.pdl"),
		RunE: func(c *cobra.Command, args []string) error {
			p.pollSet = c.Flags().Changed("watch-interval")
			return runServe(streams(c), p, args[0])
		},
	}
	c.Flags().StringVar(&p.http, "http", "", "serve streamable HTTP on `ADDR` (host:port) instead of stdio")
	c.Flags().StringArrayVar(&p.allowOrigins, "allow-origin", nil, "with --http, also admit browser requests from `ORIGIN` (scheme://host[:port]; repeatable); loopback origins are always admitted, others get 403")
	registerPDLFlags(c, &p.principal, nil)
	c.Flags().StringVar(&p.data, "data", "", "keep durable run records in `DIR` (retention with an ISO duration)")
	c.Flags().StringVar(&p.retainMem, "retain-memory", "128MiB", "hold Runs kept for their Session in at most `SIZE` of memory; past it they go to a temporary file")
	c.Flags().BoolVar(&p.noSpill, "no-spill", false, "never write Runs kept for their Session to disk: past --retain-memory, execute with store refuses (resource_limit)")
	c.Flags().BoolVar(&p.watch, "watch", false, "reload the PDL when it or a file it names changes")
	c.Flags().DurationVar(&p.poll, "watch-interval", 300*time.Millisecond, "how often --watch looks for changes")
	return c
}

func runServe(s stdio, p *serveParams, name string) error {
	// Flags are checked before the PDL is compiled, which can take a while.
	if p.http != "" && p.principal != "" {
		return usageErr("--principal is for stdio; over --http the bearer token names the principal")
	}
	if len(p.allowOrigins) > 0 && p.http == "" {
		return usageErr("--allow-origin is for --http: over stdio no browser can reach the server")
	}
	for i, o := range p.allowOrigins {
		norm, err := mcpserver.ParseOrigin(o)
		if err != nil {
			return usageErr("--allow-origin %v", err)
		}
		p.allowOrigins[i] = norm
	}
	if p.watch && p.poll <= 0 {
		return usageErr("--watch-interval must be more than zero, such as 300ms or 2s")
	}
	// Without --watch the interval would be ignored, and the user who
	// gave it would wait for reloads that never come.
	if !p.watch && p.pollSet {
		return usageErr("--watch-interval is how often --watch looks for changes; add --watch")
	}
	retain, ok := bytesize.Parse(p.retainMem)
	if !ok {
		return usageErr("--retain-memory %q: give a size such as 64MiB, 512KiB or 1GiB", p.retainMem)
	}
	logw := s.err
	res, err := loadPDL(logw, name, false, report.DefaultMaxPerRule)
	if err != nil {
		return err
	}
	if err := res.Server.CheckPrincipal(p.principal); err != nil {
		return usageErr("%v", err)
	}
	eng, err := newEngine(res.Server, p.data, runstore.Limits{Memory: retain, NoSpill: p.noSpill})
	if err != nil {
		return err
	}
	defer eng.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
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
	if note := res.Server.NoPrincipalNote(); note != "" && p.http == "" && p.principal == "" {
		notices = append(notices, note)
		fmt.Fprintf(logw, "pilotage serve: %s\n", note)
	}
	srv, err := mcpserver.New(ctx, eng, mcpserver.Options{Principal: p.principal, Logger: logger, Version: versionString(), Notices: notices, AllowOrigins: p.allowOrigins})
	if err != nil {
		return usageErr("%v", err)
	}
	if p.watch {
		reload.Watch(ctx, name, res, reload.Options{Every: p.poll, Log: logw, Swap: func(r *compile.Result) ([]string, error) {
			if err := eng.Reload(r.Server); err != nil {
				return nil, err
			}
			return eng.ChangedBodies(), srv.Refresh(ctx)
		}})
	}
	if p.http == "" {
		who := "with no principal"
		if p.principal != "" {
			who = "as principal " + p.principal
		}
		fmt.Fprintf(logw, "pilotage serve: serving %s on stdio %s\n", served(name, res.Server), who)
		if err := srv.ServeIO(ctx, s.in, s.out); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
			return usageErr("serving stdio: %v", err)
		}
		return nil
	}
	fmt.Fprintf(logw, "pilotage serve: serving %s over HTTP, each request as the principal its bearer token names\n", served(name, res.Server))
	return serveHTTP(ctx, logw, p.http, srv, res.Server.Tokens())
}

// served says what serve serves, for its start-up line on standard
// error: the Languages and the file they come from. A client cannot
// tell which definition or principal a server was started with, and an
// MCP host that starts it shows only its standard error.
func served(name string, srv *language.Server) string {
	ids := make([]string, len(srv.Languages))
	for i, l := range srv.Languages {
		ids[i] = l.ID
	}
	return fmt.Sprintf("%s from %s", strings.Join(ids, ", "), name)
}

func serveHTTP(ctx context.Context, logw io.Writer, addr string, srv *mcpserver.Server, toks map[string]string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return usageErr("--http %s: %v; give HOST:PORT, such as 127.0.0.1:8080 (port 0 picks a free one)", addr, listenErr(err))
	}
	if len(toks) == 0 {
		fmt.Fprintln(logw, "pilotage serve: the PDL declares no principal with a token: HTTP is not authenticated")
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", srv.HTTPHandler(toks))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	// The real address (a :0 port resolved) on one line, for scripts.
	fmt.Fprintf(logw, "pilotage serve: listening on http://%s/mcp\n", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return usageErr("serving HTTP: %v", err)
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = hs.Shutdown(shutdown)
	return nil
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
