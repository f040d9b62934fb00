package cmd

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/pilotage-dev/pilotage/cmd/conformverb"
	"github.com/pilotage-dev/pilotage/cmd/verb"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/workbench/conform"
)

type conformParams struct {
	out       reportFlags
	http      string
	token     string
	save      string
	timeout   time.Duration
	maxItems  int
	maxPages  int
	maxLangs  int
	program   string
	input     string
	language  string
	execute   bool
	deep      bool
	lang      string
	report    string
	disable   []string
	listRules bool
	// maxPerRule bounds the findings listed per rule and saved file, as
	// lint and replay bound them offline.
	maxPerRule int
	// dash is how many arguments come before --, -1 without it.
	dash int
}

func newConformCmd() *cobra.Command {
	p := &conformParams{}
	c := &cobra.Command{
		Use:   "conform [flags] -- COMMAND [ARG...] | conform --http URL [--token TOKEN]",
		Short: "Check a running Pilotage server over MCP with the rules lint and replay apply to files",
		Long: `Connect to a running Pilotage server as an MCP client and check it: the
extension declaration and its major version (binding.md, §11.1), that every
tool the manifest names is published with input and output schemas, the
manifest and guide resources, and the result channels (§8): processed
results, harmless request errors (an unknown guide, entry or run must be
not_found; lookup changed_since from a made-up baseline, unknown_baseline)
and carrier failures (an unknown tool). A server that declares no
Pilotage extension and has no pilotage_discover tool (a plain MCP server)
gets one binding-extension finding saying it is not a Pilotage server,
and nothing else is asked.

Everything the server publishes is read through discover, learn and lookup
(every guide with its body, the whole catalog, following cursors within
--max-items and --max-pages) into a snapshot (docs/snapshot.md) that every
lint rule checks, so the server gets exactly the findings its artifacts
would get from 'pilotage lint'. Only the first --max-languages Languages
of the manifest are read and checked; the others get no request, are left
out of the snapshot, and a read-bounds warning counts them.

With --program, the program is validated into a plan; with --execute too
(execute may have side effects on a real server, so it never runs without
it), it is executed, the Run is fetched again when the Language declares
trace_fetch, and every replay rule checks the traces against the plan.
--program also probes validate with one catalog name of the program
replaced by one that cannot exist (invalid, unknown_name, §5.5). --execute
also sends execute requests a conformant server refuses before running
anything (§6.5.2): a drifted expected_catalog_version, the program made
invalid, an unknown program_ref or trace_level, store: true under
retention none. A broken server might act on them; a conformant one must
not. --deep (with --lang, the PDL of the Language the server implements)
also re-decides the Run from its own recorded values, asking for a full
trace: every branch, loop, call input and output the program does not give
is a finding, so a server is checked for its decisions, not only its
shapes (deep replay, docs/replay.md).

What the server returned is saved in --save DIR (a new temporary directory
when not given, named on standard error): snapshot.json, plan.json,
run.json and trace.json. Lint and replay findings point into these files,
so 'pilotage lint DIR/snapshot.json' and 'pilotage replay DIR/run.json
--plan DIR/plan.json' reproduce them; findings about the exchange itself
name the MCP operation and the JSON Pointer in its result. At most
--max-per-rule lint or replay findings of one rule are listed per saved
file, the rest counted, as lint and replay list them. Progress lines
go to standard error; a stdio server's standard error is passed through.
See docs/conform.md.

Ctrl-C (SIGINT) or SIGTERM stops the check: a stdio server is sent SIGTERM
at once and killed 2s later if it is still running, and nothing is reported.

Exit status: 0 clean, 1 error findings (or warnings with --strict), 2 usage
errors or a server that cannot be started, reached or initialized, 130
after Ctrl-C (143 after SIGTERM).`,
		Example: `  pilotage conform -- pilotage serve langs/homeflow/homeflow.pdl --principal owner
  pilotage conform --save out -- ./my-server --stdio
  pilotage conform --http http://127.0.0.1:8080/mcp --token s3cret
  pilotage conform --program langs/homeflow/programs/evening.json \
      --input langs/homeflow/programs/evening.input.json --execute \
      -- pilotage serve langs/homeflow/homeflow.pdl --principal owner
  pilotage conform --format sarif -o conform.sarif -- ./my-server
  pilotage conform --disable lookup-paging,core-guide-size -- ./my-server
  pilotage conform --list-rules`,
		RunE: func(c *cobra.Command, args []string) error {
			p.dash = c.ArgsLenAtDash()
			return runConform(streams(c), p, args)
		},
	}
	p.out.register(c, report.Formats)
	f := c.Flags()
	f.StringVar(&p.http, "http", "", "check the streamable-HTTP server at `URL` instead of a COMMAND")
	f.StringVar(&p.token, "token", "", "send \"Authorization: Bearer `TOKEN`\" over --http")
	f.StringVar(&p.save, "save", "", "save what the server returned in `DIR` (default: a new temporary directory)")
	f.DurationVar(&p.timeout, "timeout", conform.DefaultTimeout, "give up on a request the server has not answered in this `DURATION`")
	f.IntVar(&p.maxItems, "max-items", conform.DefaultMaxItems, "read at most `N` guides and N catalog items per Language")
	f.IntVar(&p.maxPages, "max-pages", conform.DefaultMaxPages, "follow at most `N` pages of a list")
	f.IntVar(&p.maxLangs, "max-languages", conform.DefaultMaxLanguages, "read and check at most the first `N` Languages of the manifest")
	f.StringVar(&p.program, "program", "", "validate the program in `FILE` (and run it with --execute)")
	f.StringVar(&p.input, "input", "", "the program's input, a JSON `FILE`, for --execute")
	f.StringVar(&p.language, "language", "", "the Language `ID` --program is written in, when the server has more than one")
	f.BoolVar(&p.execute, "execute", false, "execute --program on the server (it may have side effects) and replay its trace")
	f.BoolVar(&p.deep, "deep", false, "with --execute, re-decide the Run from its recorded values with --program (deep replay, docs/replay.md); needs --lang")
	f.StringVar(&p.lang, "lang", "", "the PDL `FILE` defining the Language the server implements, for --deep (its grammar and CEL environment)")
	f.StringVar(&p.report, "report", "", "with --execute, draw the Run's replay report (plan, traces, findings) as HTML in `FILE` (docs/pictures.md)")
	f.StringSliceVar(&p.disable, "disable", nil, "turn off a rule (conform's, lint's or replay's) by `ID` (repeatable, or comma-separated)")
	f.BoolVar(&p.listRules, "list-rules", false, "list the rules (conform's, lint's and replay's) and exit")
	maxPerRuleFlag(c, &p.maxPerRule)
	return c
}

func runConform(s stdio, p *conformParams, args []string) error {
	format, err := p.out.setup()
	if err != nil {
		return err
	}
	if err := verb.CheckMaxPerRule(p.maxPerRule); err != nil {
		return err
	}
	if p.listRules {
		// A server to check, on stdio or over HTTP, is an input like
		// lint's files: --list-rules would ignore it.
		inputs := args
		if p.http != "" {
			inputs = append([]string{"--http", p.http}, args...)
		}
		return verb.ListRules(s.verb(), inputs, p.out.output, format, conform.AllRules())
	}
	return conformverb.Conform(context.Background(), conformverb.Params{
		Command:      args,
		DashAt:       p.dash,
		HTTP:         p.http,
		Token:        p.token,
		Save:         p.save,
		Timeout:      p.timeout,
		MaxItems:     p.maxItems,
		MaxPages:     p.maxPages,
		MaxLanguages: p.maxLangs,
		Program:      p.program,
		Input:        p.input,
		Language:     p.language,
		Execute:      p.execute,
		Deep:         p.deep,
		Lang:         p.lang,
		ReportFile:   p.report,
		Disable:      p.disable,
		MaxPerRule:   p.maxPerRule,
		Output:       p.out.output,
		Color:        p.out.useColor(s.err),
		Version:      versionString(),
		Report:       p.out.reporter(format),
	}, s.verb())
}
