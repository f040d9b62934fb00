package replay

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
)

// memberPlans are the plans the member cases are replayed against:
// testdata/plan.json, and the same deploy plan derived at catalog_version
// "c1", against which a trace without a mode is an installation and
// another catalog_version a finding.
func memberPlans(tb testing.TB) []*Plan {
	tb.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "plan.json"))
	if err != nil {
		tb.Fatal(err)
	}
	deploy, err := LoadPlan("plan.json", append([]byte(`{"mode": "deploy", "catalog_version": "c1", `), bytes.TrimPrefix(bytes.TrimSpace(src), []byte("{"))...))
	if err != nil {
		tb.Fatal(err)
	}
	return []*Plan{basePlan(tb), deploy}
}

// memberCases are traces whose run_id, level, outcome, mode and
// catalog_version (smallBytes) are each of skipValues and of values
// around quoteBytes: values replay accepts, written plainly and with
// escapes; strings and other values just under, at and over the length
// it keeps, cut in a character or an escape; long strings whose error
// comes past that length; and member names without a ':' or a value.
func memberCases() [][]byte {
	x := func(n int) string { return strings.Repeat("x", n) }
	values := append(skipValues(),
		`"full"`, `"summary"`, `"none"`, `"immediate"`, `"deploy"`, `"test_run"`, `""`, `"r"`, `"c1"`, `"c2"`,
		`"\u0066ull"`, `"\u0064\u0065\u0070\u006c\u006f\u0079"`, `"\u0069\u006d\u006d\u0065\u0064\u0069\u0061\u0074\u0065"`,
		`"`+x(118)+`"`, `"`+x(119)+`"`, `"`+x(120)+`"`, `"`+x(300)+`"`,
		`"`+x(117)+`é`+x(10)+`"`, `"`+x(116)+`€`+x(10)+`"`, `"`+x(115)+`\u00e9`+x(10)+`"`, `"`+x(118)+`\"`+x(10)+`"`,
		`"`+x(200)+`\x"`, `"`+x(200)+"\xff"+`"`, `"`+x(200)+"\x01"+`"`, `"`+x(200), `"`+x(200)+`\`,
		`"\u0073\u0075\u006d\u006d\u0061\u0072\u0079`+strings.Repeat(`\u0020`, 20)+`"`,
		strings.Repeat("1", 200), "-"+strings.Repeat("1", 200), "1"+strings.Repeat("0", 200)+"x",
		"["+strings.Repeat("1,", 100)+"1]", "["+strings.Repeat("1,", 100)+"1", `{"a": "`+x(200)+`", "a": 1}`,
		`{"ok": true, "status": "success", "error": "`+x(200)+`"}`, `{"ok": false, "status": "failed", "error": "`+x(200)+`"}`,
		`{"ok": true, "status": "`+x(200)+`"}`, `{"ok": true, "ok": true, "status": "success"}`,
		"\n\t \"full\" \r\n", "\"summary\"\n",
	)
	ok := `{"ok": true, "status": "success"}`
	var docs []string
	for _, v := range values {
		docs = append(docs,
			`{"level": `+v+`, "run_id": "r", "outcome": `+ok+`, "steps": []}`,
			`{"mode": `+v+`, "level": "full", "steps": []}`,
			`{"steps": [], "run_id": `+v+`, "catalog_version": `+v+`}`,
			`{"outcome": `+v+`, "steps": [{"id": "read", "kind": "step", "calls": ["sensors.read"]}]}`,
			`{"run_id": `+v+`, "outcome": `+v+`, "trace": {"run_id": "r", "level": `+v+`, "outcome": `+ok+`, "steps": []}}`,
		)
	}
	docs = append(docs,
		`{"level" "full", "steps": []}`, `{"level"`, `{"level" `, `{"level" :`, `{"level": `, `{"level":}`, `{"level":,"steps": []}`,
		`{"level" : "full" , "steps": []}`, "{\"level\"\n:\n\"full\"\n,\"steps\": []}", `{"level": "full", "level": "full"}`,
		`{"run_id": "a", "trace": {"run_id": "b", "steps": []}}`, `{"run_id": "`+x(200)+`", "trace": {"run_id": "`+x(200)+`y", "steps": []}}`,
		`{"catalog_version": "`+x(200)+`", "mode": "test_run", "level": "summary", "steps": []}`,
		`{"mode": "`+x(200)+`", "run_id": "r", "level": "full", "outcome": {"ok": true, "status": "success"}, "steps": []}`,
		`{"mode": 5, "run_id": "r", "level": "full", "outcome": {"ok": true, "status": "success"}, "steps": []}`,
		`{"mode": "", "run_id": "r", "level": "full", "outcome": {"ok": true, "status": "success"}, "steps": []}`,
	)
	out := make([][]byte, len(docs))
	for i, d := range docs {
		out[i] = []byte(d)
	}
	return out
}

// TestMembersLikeDecoder holds smallBytes to the findings, in full and in
// order, and to what a report is told (TraceSeen), of the decoder's
// reading it replaced, on every case of memberCases against both
// memberPlans, every cut of the short ones and readers that give a byte
// or half a read at a time. -short reads each case whole against one
// plan, in turn, and cuts one case in seven.
func TestMembersLikeDecoder(t *testing.T) {
	plans := memberPlans(t)
	readers := map[string]func(io.Reader) io.Reader{
		"whole": func(r io.Reader) io.Reader { return r }, "byte": iotest.OneByteReader, "half": iotest.HalfReader,
	}
	type run struct {
		plan   *Plan
		src    []byte
		reader string
	}
	var runs []run
	for i, src := range memberCases() {
		if testing.Short() {
			runs = append(runs, run{plans[i%2], src, "whole"})
			if i%7 == 0 && len(src) < 400 {
				for cut := range len(src) {
					runs = append(runs, run{plans[cut%2], src[:cut], "whole"})
				}
			}
			continue
		}
		for _, plan := range plans {
			for name := range readers {
				runs = append(runs, run{plan, src, name})
			}
			if len(src) < 400 {
				for cut := range len(src) {
					runs = append(runs, run{plan, src[:cut], "whole"})
				}
			}
		}
	}
	want := make([]string, len(runs))
	restore := tokenWalk()
	for i, r := range runs {
		want[i] = replayed(r.plan, r.src, readers[r.reader], 50)
	}
	restore()
	differ := 0
	for i, r := range runs {
		if got := replayed(r.plan, r.src, readers[r.reader], 50); got != want[i] {
			if differ++; differ <= 5 {
				t.Errorf("%.300q (%s reader, plan mode %q):\nbyte level:\n%s\ndecoder:\n%s", r.src, r.reader, r.plan.Mode, got, want[i])
			}
		}
	}
	if differ > 5 {
		t.Errorf("%d of %d runs differ", differ, len(runs))
	}
}

// FuzzMembersLikeDecoder holds smallBytes to the decoder's reading on any
// bytes, against either plan, as TestMembersLikeDecoder does on its
// cases.
func FuzzMembersLikeDecoder(f *testing.F) {
	plans := memberPlans(f)
	for i, src := range memberCases() {
		if i%3 == 0 && len(src) <= 4096 {
			f.Add(src, i%2 == 1)
		}
	}
	whole := func(r io.Reader) io.Reader { return r }
	f.Fuzz(func(t *testing.T, src []byte, deploy bool) {
		plan := plans[0]
		if deploy {
			plan = plans[1]
		}
		restore := tokenWalk()
		want := replayed(plan, src, whole, 50)
		restore()
		if got := replayed(plan, src, whole, 50); got != want {
			t.Fatalf("byte level:\n%s\ndecoder:\n%s", got, want)
		}
	})
}
