package cmd_test

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/cmd/conformverb"
	"github.com/pilotage-dev/pilotage/cmd/serveverb"
	"github.com/pilotage-dev/pilotage/cmd/verb"
	"github.com/pilotage-dev/pilotage/cmd/verb/verbtest"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/workbench/conform"
)

// serveInProcess serves the PDL file over HTTP on a free port until the test
// ends, and returns its endpoint.
func serveInProcess(t *testing.T, pdl string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- serveverb.Serve(ctx, serveverb.Params{PDL: pdl, HTTP: "127.0.0.1:0", RetainMemory: "1MiB"}, verb.Streams{In: strings.NewReader(""), Out: io.Discard, Err: pw})
		pw.Close()
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		if _, url, ok := strings.Cut(sc.Text(), "listening on "); ok {
			go io.Copy(io.Discard, pr)
			return url
		}
	}
	t.Fatalf("serve did not listen: %v", sc.Err())
	return ""
}

func conformParams(p conformverb.Params) conformverb.Params {
	p.DashAt, p.Timeout, p.MaxItems, p.MaxPages, p.MaxLanguages = -1, conform.DefaultTimeout, conform.DefaultMaxItems, conform.DefaultMaxPages, conform.DefaultMaxLanguages
	p.MaxPerRule, p.Report = report.DefaultMaxPerRule, verbtest.Reporter{}
	return p
}

// TestConformServe: calc served by pilotage serve over HTTP conforms:
// conform reaches it, reads and checks it, and reports no error.
func TestConformServe(t *testing.T) {
	url := serveInProcess(t, "../langs/calc/calc.pdl")
	r := verbtest.Call(func(s verb.Streams) error {
		return conformverb.Conform(context.Background(), conformParams(conformverb.Params{HTTP: url, Save: t.TempDir()}), s)
	})
	if r.Code != verb.ExitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Out, r.Err)
	}
	if !strings.Contains(r.Out, "0 errors") {
		t.Errorf("report:\n%s", r.Out)
	}
}

// TestConformRefuses: a server named twice or not at all, and flags that
// need others, are usage errors (exit 2).
func TestConformRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    conformverb.Params
		want string
	}{
		{"both", conformverb.Params{HTTP: "http://127.0.0.1:1/mcp", Command: []string{"x"}}, "not both"},
		{"none", conformverb.Params{}, "conform needs a server"},
		{"scheme", conformverb.Params{HTTP: "127.0.0.1:8080/mcp"}, "is not an http:// or https:// URL"},
		{"no dash", conformverb.Params{Command: []string{"pilotage"}, DashAt: 1}, "put -- before the server's COMMAND"},
		{"deep alone", conformverb.Params{HTTP: "http://127.0.0.1:1/mcp", Deep: true}, "--deep re-decides the Run of --program"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := conformParams(tc.p)
			p.DashAt = tc.p.DashAt
			if p.DashAt == 0 {
				p.DashAt = -1
			}
			r := verbtest.Call(func(s verb.Streams) error { return conformverb.Conform(context.Background(), p, s) })
			if r.Code != verb.ExitUsage || !strings.Contains(r.Err, tc.want) {
				t.Fatalf("exit %d, stderr %q; want exit 2 and %q", r.Code, r.Err, tc.want)
			}
		})
	}
}
