package cmd_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/cmd/fmtverb"
	"github.com/pilotage-dev/pilotage/cmd/verb"
	"github.com/pilotage-dev/pilotage/cmd/verb/verbtest"
	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
)

func fmtFiles(t *testing.T, p fmtverb.Params) (string, string, int) {
	t.Helper()
	r := verbtest.Call(func(s verb.Streams) error { return fmtverb.Fmt(context.Background(), p, s) })
	return r.Out, r.Err, r.Code
}

// TestFmtLangs: the Languages of langs/ and the ledger's text programs
// are in their canonical layout, so -l lists nothing and exits 0.
func TestFmtLangs(t *testing.T) {
	out, errs, code := fmtFiles(t, fmtverb.Params{Files: []string{"../langs"}, List: true})
	if code != verb.ExitOK || out != "" || errs != "" {
		t.Fatalf("langs: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	progs, _ := filepath.Glob("../langs/ledger/programs/*.txt")
	out, errs, code = fmtFiles(t, fmtverb.Params{Files: progs, List: true, Lang: "../langs/ledger/ledger.pdl"})
	if len(progs) == 0 || code != verb.ExitOK || out != "" || errs != "" {
		t.Fatalf("ledger programs %v: exit %d, stdout %q, stderr %q", progs, code, out, errs)
	}
}

// TestFmtMessy: a file out of layout is printed in it, is diffed and
// listed with exit 1, and -w rewrites it.
func TestFmtMessy(t *testing.T) {
	out, _, code := fmtFiles(t, fmtverb.Params{Files: []string{"testdata/fmtverb/messy.pdl"}})
	if code != verb.ExitOK {
		t.Fatalf("exit %d", code)
	}
	golden.Check(t, "testdata/fmtverb/messy.golden", []byte(out))
	if diff, _, code := fmtFiles(t, fmtverb.Params{Files: []string{"testdata/fmtverb/messy.pdl"}, Diff: true}); code != verb.ExitFindings || !strings.Contains(diff, "+  mode immediate\n") {
		t.Fatalf("-d: exit %d\n%s", code, diff)
	}
	tmp := filepath.Join(t.TempDir(), "messy.pdl")
	src, err := os.ReadFile("testdata/fmtverb/messy.pdl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tmp, src, 0o644); err != nil {
		t.Fatal(err)
	}
	if list, _, code := fmtFiles(t, fmtverb.Params{Files: []string{tmp}, List: true, Write: true}); code != verb.ExitFindings || list != tmp+"\n" {
		t.Fatalf("-l -w: exit %d, stdout %q", code, list)
	}
	if got, _ := os.ReadFile(tmp); string(got) != out {
		t.Fatalf("-w wrote\n%s\nwant\n%s", got, out)
	}
}

// TestFmtRefuses: standard input cannot be rewritten, and a Language
// whose programs are JSON has no text layout.
func TestFmtRefuses(t *testing.T) {
	if _, errs, code := fmtFiles(t, fmtverb.Params{Files: []string{"-"}, Write: true}); code != verb.ExitUsage || !strings.Contains(errs, "-w cannot rewrite standard input") {
		t.Fatalf("-w -: exit %d, %q", code, errs)
	}
	if _, errs, code := fmtFiles(t, fmtverb.Params{Files: []string{"x.json"}, Lang: "../langs/calc/calc.pdl"}); code != verb.ExitUsage || !strings.Contains(errs, "writes its programs as JSON") {
		t.Fatalf("--lang calc: exit %d, %q", code, errs)
	}
}
