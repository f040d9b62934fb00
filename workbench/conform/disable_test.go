package conform

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// Options.Disabled turns off conform's own rules and lint's and replay's,
// as --disable does for lint and replay: the findings are those of the
// check without it, less the disabled rules', and the report does not
// list the disabled rules as run.
func TestDisable(t *testing.T) {
	for _, tc := range []struct {
		name   string
		server func(t *testing.T) *mcp.Server
		opt    func(t *testing.T) Options
		// other is the rule set the second disabled rule comes from.
		other []report.RuleInfo
	}{
		// binding-resources, and lint's findings on a broken snapshot.
		{"lint", func(t *testing.T) *mcp.Server {
			f := newFake(t, "../../docs/examples/broken-snapshot.json")
			f.noManifestResource = true
			return f.server()
		}, func(*testing.T) Options { return Options{} }, lintRules()},
		// trace-fetch-run, and replay's findings on the fetched Run.
		{"replay", func(t *testing.T) *mcp.Server {
			s := reference(t, homeflow(t), "owner").MCP()
			s.AddReceivingMiddleware(rewriteTool(t, "homeflow_v1_trace", func(run map[string]any) {
				run["outcome"] = map[string]any{"ok": false, "status": "timeout"}
			}))
			return s
		}, func(t *testing.T) Options { return Options{Execute: true, Program: evening(t)} }, replayRules()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := func(disabled map[string]bool) ([]string, *report.Report) {
				opt := tc.opt(t)
				opt.Dir, opt.Disabled = t.TempDir(), disabled
				rep := check(t, inMemory(t, tc.server(t)), opt)
				var keys []string
				for _, f := range rep.Findings {
					keys = append(keys, f.Rule+" "+strings.ReplaceAll(f.File, opt.Dir, "DIR")+" "+f.Pointer+" "+strings.ReplaceAll(f.Message, opt.Dir, "DIR"))
				}
				return keys, rep
			}
			all, rep := run(nil)
			ruleOf := func(infos []report.RuleInfo) string {
				for _, f := range rep.Findings {
					if slices.ContainsFunc(infos, func(r report.RuleInfo) bool { return r.ID == f.Rule }) {
						return f.Rule
					}
				}
				t.Fatalf("no finding of the rules %v:\n%s", infos, findings(rep))
				return ""
			}
			off := map[string]bool{ruleOf(Rules()): true, ruleOf(tc.other): true}
			var want []string
			for _, k := range all {
				if !off[strings.Fields(k)[0]] {
					want = append(want, k)
				}
			}
			got, rep := run(off)
			if !slices.Equal(got, want) {
				t.Errorf("with %v disabled:\n%s\nwant:\n%s", off, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			for _, r := range rep.Rules {
				if off[r.ID] {
					t.Errorf("the report lists the disabled rule %s as run", r.ID)
				}
			}
		})
	}
}

// An ID that names no rule fails the check before anything is done (the
// save directory is not even created), with lint's and replay's error.
func TestDisableUnknownRule(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "save")
	_, err := Check(context.Background(), inMemory(t, newFake(t, cleanSnapshot).server()), Options{Dir: dir, Disabled: map[string]bool{"lookup-pagin": true}})
	const want = `unknown rule "lookup-pagin" (did you mean "lookup-paging"?); list the rules with --list-rules`
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %s", err, want)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the save directory was created: %v", err)
	}
}
