// Package conformverb is pilotage conform as a function: a running MCP
// server, started on stdio or reached over HTTP, checked by
// workbench/conform, with a program validated, executed and replayed.
package conformverb

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/cmd/verb"
	"github.com/pilotage-dev/pilotage/internal/base/fserr"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/expr"
	"github.com/pilotage-dev/pilotage/replay"
	"github.com/pilotage-dev/pilotage/workbench/conform"
	"github.com/pilotage-dev/pilotage/workbench/picture"
)

// Params are pilotage conform's arguments and flags.
type Params struct {
	// Command is the server's command line (after --), DashAt how many
	// arguments came before -- (-1 without it).
	Command []string
	DashAt  int
	// HTTP is the server's streamable-HTTP URL and Token its bearer token.
	HTTP, Token string
	// Save is the directory what the server returned is saved in; ""
	// makes a temporary one.
	Save string
	// Timeout, MaxItems, MaxPages and MaxLanguages bound the requests.
	Timeout                          time.Duration
	MaxItems, MaxPages, MaxLanguages int
	// Program is a program file validated (and with Execute run) in the
	// Language of ID Language, on the JSON Input; Deep re-decides its
	// Run in the Language Lang defines.
	Program, Input, Language string
	Execute, Deep            bool
	Lang                     string
	// ReportFile is the HTML file the Run's replay report is drawn in.
	ReportFile string
	// Disable are the rule IDs turned off.
	Disable []string
	// MaxPerRule bounds the findings listed per rule and saved file.
	MaxPerRule int
	// Output is the -o file, which must not be an input.
	Output string
	// Color colours the errors of a PDL that does not compile.
	Color bool
	// Version is the tool's version, told to the server at initialize.
	Version string
	// Report writes the report and says how conform ends.
	Report verb.Reporter
}

// Conform checks the MCP server p names, started on stdio (p.Command)
// or reached over HTTP, against the binding and Part II, and hands the
// report to p.Report. An interrupt or SIGTERM stops the server and every
// request. Its error carries the exit code (verb.Code): 2 for usage
// errors and a server that cannot be reached, 128 + the signal's number
// when one stopped it.
func Conform(ctx context.Context, p Params, s verb.Streams) error {
	args := p.Command
	var err error
	ctx, stop := interruptible(ctx)
	defer stop()
	var tr mcp.Transport
	switch {
	case p.HTTP != "" && len(args) > 0:
		return verb.Usage("give --http URL or -- COMMAND, not both")
	case p.HTTP != "":
		// A URL without its scheme (127.0.0.1:8080/mcp, the address serve's
		// --http takes) would otherwise fail only once connecting, in the
		// HTTP client's words.
		if u, err := url.Parse(p.HTTP); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return verb.Usage("--http %q is not an http:// or https:// URL\n  hint: --http takes the server's streamable-HTTP endpoint, such as http://127.0.0.1:8080/mcp", p.HTTP)
		}
		tr = conform.HTTP(p.HTTP, p.Token)
	case len(args) == 0:
		return verb.Usage("conform needs a server: -- COMMAND [ARG...] to start one on stdio, or --http URL; see 'pilotage conform --help'")
	case p.Token != "":
		return verb.Usage("--token is for --http; a stdio server runs as the principal it was started as")
	case p.DashAt != 0:
		return verb.Usage("put -- before the server's COMMAND, so its flags are not read as conform's: pilotage conform [flags] -- %s", report.Clip(strings.Join(args, " ")))
	default:
		tr = conform.Command(ctx, args[0], args[1:], s.Err)
	}
	if p.Timeout <= 0 || p.MaxItems < 1 || p.MaxPages < 1 || p.MaxLanguages < 1 {
		return verb.Usage("--timeout, --max-items, --max-pages and --max-languages must be more than zero")
	}
	opt := conform.Options{Dir: p.Save, Timeout: p.Timeout, MaxItems: p.MaxItems, MaxPages: p.MaxPages, MaxLanguages: p.MaxLanguages,
		LanguageID: p.Language, Execute: p.Execute, Status: s.Err, Version: p.Version, Disabled: map[string]bool{},
		MaxPerRule: p.MaxPerRule}
	if p.ReportFile != "" {
		if !p.Execute {
			return verb.Usage("--report draws the Run of --program: give --program FILE --execute")
		}
		opt.Report = &htmlReport{file: p.ReportFile}
	}
	for _, id := range p.Disable {
		opt.Disabled[id] = true
	}
	if err := conform.CheckDisabled(opt.Disabled); err != nil {
		return verb.Usage("%v", err)
	}
	if opt.Program, err = conformProgram(s, p); err != nil {
		return programError(s, p, err)
	}
	if opt.Deep, err = conformDeep(s, p, opt.Program); err != nil {
		return err
	}
	if err := writable(p); err != nil {
		return err
	}
	if opt.Dir == "" {
		if opt.Dir, err = os.MkdirTemp("", "pilotage-conform-"); err != nil {
			return verb.Usage("--save: %v", err)
		}
		// The temporary directory is left for the user to read what was
		// saved (its name is on standard error), but one that nothing
		// was saved in (the server could not be reached, or is not a
		// Pilotage server) is only litter: os.Remove takes only an
		// empty directory.
		defer os.Remove(opt.Dir)
	}
	rep, err := conform.Check(ctx, tr, opt)
	var sig signalled
	if errors.As(context.Cause(ctx), &sig) {
		return &verb.ExitError{Code: 128 + int(sig.sig), Err: fmt.Errorf("conform stopped: %v", sig.sig)}
	}
	var re *conform.ReportError
	if errors.As(err, &re) {
		// The Run's report is not written, but the findings are all
		// there: they are written, then conform fails for the report.
		if err := reportFindings(s, p, rep); verb.Code(err) == verb.ExitUsage {
			return err
		}
		return verb.Usage("%v", fserr.Plain(re.Err))
	}
	if err != nil {
		var ce *conform.ConnectError
		var pe *conform.ProgramError
		if errors.As(err, &pe) {
			return programError(s, p, err)
		}
		if errors.As(err, &ce) {
			hint := "the COMMAND after -- must start an MCP server speaking on its standard input and output, such as: pilotage serve lang.pdl"
			if p.HTTP != "" {
				hint = "--http takes the server's streamable-HTTP endpoint, such as http://127.0.0.1:8080/mcp, and --token its bearer token"
			}
			return verb.Usage("%v\n  hint: %s", err, hint)
		}
		return verb.Usage("%v", fserr.Plain(err))
	}
	return reportFindings(s, p, rep)
}

// reportFindings hands rep to p.Report; when -o cannot be written all
// the same (it was checked before the server started), the findings are
// written on standard output as text, so a check that may have executed
// on the server does not end with no word of what it found.
func reportFindings(s verb.Streams, p Params, rep *report.Report) error {
	err := p.Report.Report(s, rep)
	if verb.Code(err) != verb.ExitUsage || verb.IsStdout(p.Output) {
		return err
	}
	_ = report.Write(s.Out, report.Text, rep, report.Options{})
	return err
}

// writable checks, before the server is started (with --execute it may
// act), that the files conform writes at the end can be: -o and
// --report are not directories, and their directory exists and takes a
// new file. Another path that exists and is not a regular file (a pipe,
// /dev/null) is written as it goes (verb.WriteOutput), so it passes.
// The --save directory is made now for a --report inside it.
func writable(p Params) error {
	if p.Save != "" {
		if err := os.MkdirAll(p.Save, 0o755); err != nil {
			return verb.Usage("--save: %v", fserr.Plain(err))
		}
	}
	for _, f := range []struct{ flag, file string }{{"-o", p.Output}, {"--report", p.ReportFile}} {
		if f.file == "" || (f.flag == "-o" && verb.IsStdout(f.file)) {
			continue
		}
		if fi, err := os.Stat(f.file); err == nil && fi.IsDir() {
			return verb.Usage("%s %s: is a directory; %s names the file to write", f.flag, f.file, f.flag)
		}
		dir := filepath.Dir(f.file)
		fi, err := os.Stat(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return verb.Usage("%s %s: the directory %s does not exist", f.flag, f.file, dir)
		case err != nil:
			return verb.Usage("%s %s: %v", f.flag, f.file, fserr.Plain(err))
		case !fi.IsDir():
			return verb.Usage("%s %s: %s is not a directory", f.flag, f.file, dir)
		}
		probe, err := os.CreateTemp(dir, ".pilotage-conform-*")
		if err != nil {
			return verb.Usage("%s %s: the directory %s takes no new file: %v", f.flag, f.file, dir, fserr.Plain(err))
		}
		probe.Close()
		os.Remove(probe.Name())
	}
	return nil
}

// programError writes the report of a --program that is not JSON, as
// validate reports it (the syntax finding at the byte, quoted), on
// standard error, and ends conform with exit 2, as for an input or a
// --lang that does not read: no check of the program could run, and
// standard output is for the report of the server. Any other error is
// returned as it is.
func programError(s verb.Streams, p Params, err error) error {
	var pe *conform.ProgramError
	if !errors.As(err, &pe) {
		return err
	}
	return verb.Unusable(s.Err, pe.Report, p.Color)
}

// signalled is the cause of a context a signal ended.
type signalled struct{ sig syscall.Signal }

func (s signalled) Error() string { return s.sig.String() }

// interruptible returns a context that SIGINT or SIGTERM ends with a
// signalled cause, so conform can stop its child server and every
// request, then exit with 128 + the signal's number (130 for Ctrl-C):
// the status a shell reports for a verb that does not catch the signal
// and dies of it. Only the first signal is caught; a second one kills
// pilotage at once.
func interruptible(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case s := <-sigs:
			signal.Stop(sigs)
			cancel(signalled{s.(syscall.Signal)})
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		cancel(nil)
	}
}

// conformDeep loads what --deep re-decides the Run with: --program in
// the Language --lang defines, with the Run's --input.
func conformDeep(s verb.Streams, p Params, prog *conform.Program) (*replay.Deep, error) {
	switch {
	case !p.Deep && p.Lang == "":
		return nil, nil
	case !p.Deep:
		return nil, verb.Usage("--lang is the Language --deep re-decides the Run in; give --deep too")
	case !p.Execute || p.Lang == "":
		return nil, verb.Usage("--deep re-decides the Run of --program: give --program FILE --execute --lang FILE.pdl")
	}
	res, err := verb.LoadPDL(s.Err, p.Lang, "--lang", p.Color, p.MaxPerRule)
	if err != nil {
		return nil, err
	}
	l, err := res.Server.Pick(p.Language)
	if err != nil {
		return nil, verb.Usage("%v", err)
	}
	if p.ReportFile != "" && !pilotage.Effective(res.Server.Capabilities, l.Capabilities).Has(pilotage.CapPlan) {
		// Known before the server is started: execute may act.
		return nil, verb.Usage("--report: %s", conform.NoPlan(l.ID))
	}
	deep, err := replay.LoadDeep(prog.File, prog.Src, res.Server, l)
	if err != nil {
		return nil, verb.Usage("%v", err)
	}
	in := prog.Input
	if in == nil {
		in = json.RawMessage(`{}`) // the input an absent one binds to (§6.5.5)
	}
	if deep.Input, err = expr.DecodeJSON(in); err != nil {
		return nil, verb.Usage("%s: %v", p.Input, err)
	}
	return deep, nil
}

// conformProgram reads --program and --input.
func conformProgram(s verb.Streams, p Params) (*conform.Program, error) {
	switch {
	case p.Program == "" && (p.Input != "" || p.Execute || p.Language != ""):
		return nil, verb.Usage("--input, --execute and --language need --program FILE")
	case p.Program == "":
		return nil, nil
	}
	if err := verb.OneStdin(p.Program, p.Input); err != nil {
		return nil, err
	}
	if err := verb.OutputNotInput(p.Output, p.Program, p.Input); err != nil {
		return nil, err
	}
	src, err := verb.ReadInput(s, p.Program, verb.ArtifactBound)
	if err != nil {
		return nil, err
	}
	prog := &conform.Program{File: p.Program, Src: src}
	// Checked before the server starts: a program named *.json is a JSON
	// program (as pilotage test reads one), and any other is at least
	// UTF-8 text, which a JSON program is too; that one named otherwise
	// is JSON is checked once discover says its Language reads JSON.
	if strings.EqualFold(filepath.Ext(p.Program), ".json") {
		if pe := prog.CheckJSON(""); pe != nil {
			return nil, pe
		}
	} else if err := verb.TextIsUTF8(p.Program, src, true); err != nil {
		return nil, err
	}
	if p.Input != "" {
		in, err := verb.ReadInput(s, p.Input, verb.ArtifactBound)
		if err != nil {
			return nil, err
		}
		if prog.Input, err = verb.JSONFile(p.Input, in); err != nil {
			return nil, err
		}
	}
	return prog, nil
}

// htmlReport draws the Run conform executed as pilotage replay --format
// html draws a replay: the plan with the Run's traces over it.
type htmlReport struct {
	file string
	pic  *picture.Replay
}

func (h *htmlReport) Watch(plan *replay.Plan, opt *replay.Options) {
	h.pic = picture.NewReplay(plan)
	opt.OnStep, opt.OnTrace = h.pic.Step, h.pic.Trace
}

func (h *htmlReport) Write(rep *report.Report) (string, error) {
	var b bytes.Buffer
	if err := h.pic.Page(rep, picture.PageOptions{Dir: filepath.Dir(h.file)}).WriteHTML(&b); err != nil {
		return "", err
	}
	return h.file, os.WriteFile(h.file, b.Bytes(), 0o644)
}
