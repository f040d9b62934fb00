package cmd_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/cmd/buildverb"
	"github.com/pilotage-dev/pilotage/cmd/verb"
	"github.com/pilotage-dev/pilotage/cmd/verb/verbtest"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
)

func build(t *testing.T, p buildverb.Params) (string, string, int) {
	t.Helper()
	if p.MaxPerRule == 0 {
		p.MaxPerRule = report.DefaultMaxPerRule
	}
	r := verbtest.Call(func(s verb.Streams) error { return buildverb.Build(context.Background(), p, s) })
	return r.Out, r.Err, r.Code
}

// TestBuildLangs: two Languages of langs/ build side by side, each into
// its own directory, every file written named on standard output; the
// snapshot written is a JSON document that names the Language.
func TestBuildLangs(t *testing.T) {
	dir := t.TempDir()
	out, errs, code := build(t, buildverb.Params{Files: []string{"../langs/calc/calc.pdl", "../langs/homeflow/homeflow.pdl"}, Dir: dir})
	if code != verb.ExitOK || errs != "" {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	golden.Check(t, "testdata/buildverb/langs.golden", []byte(strings.ReplaceAll(out, filepath.ToSlash(dir), "OUT")))
	snap, err := os.ReadFile(filepath.Join(dir, "calc", "snapshot.json"))
	if err != nil || !bytes.Contains(snap, []byte(`"calc`)) {
		t.Fatalf("calc snapshot: %v\n%.200s", err, snap)
	}
}

// TestBuildRefuses: what cannot be built is refused before anything is
// written, exit 2 with the reason.
func TestBuildRefuses(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		p    buildverb.Params
		want string
	}{
		{"stdout", buildverb.Params{Files: []string{"../langs/calc/calc.pdl"}, Dir: "-"}, "-o takes a DIR"},
		{"same stem", buildverb.Params{Files: []string{"../langs/calc/calc.pdl", "testdata/buildverb/calc.pdl"}, Dir: dir}, "would both build into"},
		{"missing", buildverb.Params{Files: []string{"testdata/buildverb/missing.pdl"}, Dir: dir}, "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errs, code := build(t, tc.p)
			if code != verb.ExitUsage || !strings.Contains(errs, tc.want) {
				t.Fatalf("exit %d, stderr %q; want exit 2 and %q", code, errs, tc.want)
			}
		})
	}
	if left, _ := os.ReadDir(dir); len(left) > 0 {
		t.Errorf("a refused build wrote %d files", len(left))
	}
}
