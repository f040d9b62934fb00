package replay

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"
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
	deploy, err := LoadPlan("plan.json", append([]byte(`{"mode": "deploy", "catalog_version": "c1", `), bytes.TrimPrefix(bytes.TrimSpace(src), []byte("{"))...), 0)
	if err != nil {
		tb.Fatal(err)
	}
	return []*Plan{basePlan(tb), deploy}
}

// memberValues are the values the member cases give run_id, level,
// outcome, mode and catalog_version (smallBytes): skipValues, values
// replay accepts, written plainly and with escapes, strings and other
// values just under, at and over quoteBytes, cut in a character or an
// escape, and long strings whose error comes past it.
func memberValues() []string {
	x := func(n int) string { return strings.Repeat("x", n) }
	return append(skipValues(),
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
}

// memberCases are traces whose members smallBytes reads are values, in
// a trace and in a response carrying one.
func memberCases(values []string) [][]byte {
	ok := `{"ok": true, "status": "success"}`
	var docs [][]byte
	for _, v := range values {
		for _, d := range []string{
			`{"level": ` + v + `, "run_id": "r", "outcome": ` + ok + `, "steps": []}`,
			`{"mode": ` + v + `, "level": "full", "steps": []}`,
			`{"steps": [], "run_id": ` + v + `, "catalog_version": ` + v + `}`,
			`{"outcome": ` + v + `, "steps": [{"id": "read", "kind": "step", "calls": ["sensors.read"]}]}`,
			`{"run_id": ` + v + `, "outcome": ` + v + `, "trace": {"run_id": "r", "level": ` + v + `, "outcome": ` + ok + `, "steps": []}}`,
		} {
			docs = append(docs, []byte(d))
		}
	}
	return docs
}

// memberNames are traces where a member smallBytes reads is cut or
// misspelt around its name, and where the long values it keeps whole
// matter: two run_ids, a catalog_version and a mode.
func memberNames() [][]byte {
	x := strings.Repeat("x", 200)
	var docs [][]byte
	for _, d := range []string{
		`{"level" "full", "steps": []}`, `{"level"`, `{"level" `, `{"level" :`, `{"level": `, `{"level":}`, `{"level":,"steps": []}`,
		`{"level" : "full" , "steps": []}`, "{\"level\"\n:\n\"full\"\n,\"steps\": []}", `{"level": "full", "level": "full"}`,
		`{"run_id": "a", "trace": {"run_id": "b", "steps": []}}`, `{"run_id": "` + x + `", "trace": {"run_id": "` + x + `y", "steps": []}}`,
		`{"catalog_version": "` + x + `", "mode": "test_run", "level": "summary", "steps": []}`,
		`{"mode": "` + x + `", "run_id": "r", "level": "full", "outcome": {"ok": true, "status": "success"}, "steps": []}`,
		`{"mode": 5, "run_id": "r", "level": "full", "outcome": {"ok": true, "status": "success"}, "steps": []}`,
		`{"mode": "", "run_id": "r", "level": "full", "outcome": {"ok": true, "status": "success"}, "steps": []}`,
	} {
		docs = append(docs, []byte(d))
	}
	return docs
}

// TestMembersLikeDecoder holds smallBytes to the findings, in full and in
// order, and to what a report is told (TraceSeen), of the decoder's
// reading it replaced, on every case of memberCases against both
// memberPlans, every cut of the short ones and readers that give a byte
// or half a read at a time.
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
	values, names := memberValues(), memberNames()
	if testing.Short() {
		// A value of quoteBytes or less is the decoder's, as in the
		// reference: -short reads the cases of longer ones (but the
		// 10,000-deep), each against one plan in turn, and every cut
		// of the names.
		values = slices.DeleteFunc(values, func(v string) bool { return len(v) <= quoteBytes || len(v) > 4096 })
		for i, src := range append(memberCases(values), names...) {
			runs = append(runs, run{plans[i%2], src, "whole"})
		}
		for _, src := range names[:10] {
			for cut := range len(src) {
				runs = append(runs, run{plans[cut%2], src[:cut], "whole"})
			}
		}
	} else {
		for _, src := range append(memberCases(values), names...) {
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
	for i, src := range append(memberCases(memberValues()), memberNames()...) {
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

// BenchmarkMembers replays normal traces, testdata/trace.json (780
// bytes, its run_id, level and outcome first) and the same carried by an
// execute response (run_id and outcome twice, mode and catalog_version),
// with smallBytes and, in the same loop, with the decoder's reading it
// replaced: "ratio" is byte level over decoder, per case, the medians
// of their times, which a busy machine's spikes move less than sums.
//
//	go test ./replay -run XXX -bench Members -benchtime 20000x -count 3
func BenchmarkMembers(b *testing.B) {
	plans := memberPlans(b)
	trace, err := os.ReadFile(filepath.Join("testdata", "trace.json"))
	if err != nil {
		b.Fatal(err)
	}
	response := append(append([]byte(`{"run_id": "r1", "outcome": {"ok": true, "status": "success"}, "trace": `),
		bytes.Replace(trace, []byte(`"level"`), []byte(`"mode": "immediate", "catalog_version": "c1", "level"`), 1)...), '}')
	decoder := func(w *walker, ptr string, _ byte) (*located, error) { return w.small(ptr) }
	for _, c := range []struct {
		name string
		src  []byte
	}{{"trace", trace}, {"response", response}} {
		b.Run(c.name, func(b *testing.B) {
			var times [2][]time.Duration
			for b.Loop() {
				for i, read := range []func(*walker, string, byte) (*located, error){readSmall, decoder} {
					small := readSmall
					readSmall = read
					start := time.Now()
					Replay(plans[1], "b.json", bytes.NewReader(c.src), Options{})
					times[i] = append(times[i], time.Since(start))
					readSmall = small
				}
			}
			median := func(ts []time.Duration) float64 {
				slices.Sort(ts)
				return float64(ts[len(ts)/2].Nanoseconds()) / 1e3
			}
			bytesTime, decoderTime := median(times[0]), median(times[1])
			b.ReportMetric(bytesTime, "bytes-µs/op")
			b.ReportMetric(decoderTime, "decoder-µs/op")
			b.ReportMetric(bytesTime/decoderTime, "ratio")
		})
	}
}
