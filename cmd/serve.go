package cmd

import (
	"context"
	"time"

	"github.com/pilotage-dev/pilotage/cmd/serveverb"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/workbench/mcpserver"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
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
	maxMessage   string
	maxSessions  int
	// maxSessionsSet: --max-sessions was given.
	maxSessionsSet bool
	// flags are the verb's, for --config.
	flags *pflag.FlagSet
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
is refused with resource_limit before the Run starts. A temporary file
that cannot be made or written (no TMPDIR, a full disk) is said once on
standard error, and serve then refuses as with --no-spill.

--max-message-bytes SIZE bounds every JSON-RPC message read: a longer
stdio line is answered with an Invalid Request and skipped, a larger HTTP
request body with 413. By default it is the largest request a served
Language takes, an execute with an input of its limits memory and a
program and a context of its limits program (20MiB plus 64KiB under
the default limits), computed again at each --watch reload, so a reload
that raises those limits raises it too.

--max-sessions N bounds the MCP sessions open at once over --http (1000
by default): each lives until its client ends it or it is idle for 30
minutes, and an initialize past the bound is answered 503 with a
JSON-RPC error saying so.

--watch recompiles the PDL and every file it names when one changes and
swaps the new definition in, so clients meet catalog_drift and
promotion_drift for real; a definition with errors is reported and the
old one kept. See docs/serve.md.

The PDL's errors are printed on standard error with their source lines;
` + pdlErrorsCap + `.

A definition that compiles but that lint finds errors in (as pilotage
lint FILE.pdl would, under the same pilotage.yaml) is served all the
same, since clients and conform are tested against broken servers too:
one warning line on standard error, at start and at each --watch
reload, counts the errors and names their rules. pilotage.yaml is read
again at each reload (an edit of it alone triggers none). Serve reads
it only for this warning: a broken pilotage.yaml is warned of, and
conformance judged without its settings; a file --config names must
be valid.

Exit status: 0 after a clean shutdown, even of a definition lint finds
errors in; 2 when the PDL has errors, the flags are wrong, the file
--config names has errors, or the --http address or --data directory
cannot be used.`,
		Example: `  pilotage serve langs/homeflow/homeflow.pdl --principal owner
  pilotage serve langs/homeflow/homeflow.pdl --http 127.0.0.1:8080 --data ./runs
  npx -y @modelcontextprotocol/inspector --cli pilotage serve langs/calc/calc.pdl --method tools/list`,
		Args: needArgs(1, 1, "one FILE.pdl"),
		RunE: func(c *cobra.Command, args []string) error {
			p.pollSet = c.Flags().Changed("watch-interval")
			p.maxSessionsSet = c.Flags().Changed("max-sessions")
			return runServe(streams(c), p, args[0])
		},
	}
	c.Flags().StringVar(&p.http, "http", "", "serve streamable HTTP on `ADDR` (host:port) instead of stdio")
	c.Flags().StringArrayVar(&p.allowOrigins, "allow-origin", nil, "with --http, also admit browser requests from `ORIGIN` (scheme://host[:port]; repeatable); loopback origins are always admitted, others get 403")
	registerPDLFlags(c, &p.principal, nil)
	c.Flags().StringVar(&p.data, "data", "", "keep durable run records in `DIR` (retention with an ISO duration)")
	c.Flags().StringVar(&p.retainMem, "retain-memory", "128MiB", "hold Runs kept for their Session in at most `SIZE` of memory; past it they go to a temporary file")
	c.Flags().BoolVar(&p.noSpill, "no-spill", false, "never write Runs kept for their Session to disk: past --retain-memory, execute with store refuses (resource_limit)")
	c.Flags().StringVar(&p.maxMessage, "max-message-bytes", "", "read JSON-RPC messages (a stdio line, an HTTP request body) of at most `SIZE`; larger ones are refused and the Session goes on (default: the largest a served Language takes, its limits memory plus 4 times limits program plus 64KiB)")
	c.Flags().IntVar(&p.maxSessions, "max-sessions", mcpserver.DefaultMaxSessions, "with --http, keep at most `N` MCP sessions open at once; an initialize past it is answered 503 until one ends or an idle one closes")
	c.Flags().BoolVar(&p.watch, "watch", false, "reload the PDL when it, a file it names or pilotage.yaml changes")
	c.Flags().DurationVar(&p.poll, "watch-interval", 300*time.Millisecond, "how often --watch looks for changes")
	p.flags = c.Flags()
	return c
}

func runServe(s stdio, p *serveParams, name string) error {
	rules := func() (func(*report.Report), error) {
		cfg, _, err := loadConfig(p.flags)
		if err != nil {
			return nil, err
		}
		// Serve warns of a Language lint finds errors in, under the
		// same pilotage.yaml.
		conf := reportFlags{cfg: cfg}
		return conf.applier(), nil
	}
	// A file --config names is one the user means serve to read: a
	// broken one is refused, as by every verb. pilotage.yaml found on
	// its own only shapes a warning, so serve warns of it and serves.
	if explicit, _ := p.flags.GetString(configFlag); explicit != "" {
		if _, err := rules(); err != nil {
			return err
		}
	}
	// Loading a large catalog held its compile, the check of its
	// snapshot and the engine together, with the collector's room on top:
	// 21 bytes a byte of 60,000 generated entries. The soft limit of
	// build and lint holds the loading, not the requests served after it
	// (docs/performance.md, "Generated catalogs past the tree budget").
	limit := limitMemory([]string{name})
	defer limit.restore()
	return serveverb.Serve(context.Background(), serveverb.Params{
		Loaded:         limit.restore,
		PDL:            name,
		HTTP:           p.http,
		AllowOrigins:   p.allowOrigins,
		Principal:      p.principal,
		Data:           p.data,
		Watch:          p.watch,
		WatchInterval:  p.poll,
		IntervalSet:    p.pollSet,
		WatchAlso:      configFiles(p.flags),
		RetainMemory:   p.retainMem,
		NoSpill:        p.noSpill,
		MaxMessage:     p.maxMessage,
		MaxSessions:    p.maxSessions,
		MaxSessionsSet: p.maxSessionsSet,
		Version:        versionString(),
		Rules:          rules,
	}, s.verb())
}
