package cmd

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// writeLoopTrace writes a plan with one loop and a clean trace of it with
// n iterations (about 130 bytes each), and returns their paths.
func writeLoopTrace(t *testing.T, n int) (plan, trace string) {
	t.Helper()
	dir := t.TempDir()
	plan = filepath.Join(dir, "plan.json")
	hints := `{"readOnly": false, "destructive": false, "openWorld": false}`
	if err := os.WriteFile(plan, []byte(`{"steps": [{"id": "each", "kind": "loop"},
		{"id": "off", "kind": "step", "calls": ["lights.set"], "loop": "each", "risk": "write", "risk_hints": `+hints+`}],
		"max_risk": "write", "max_risk_hints": `+hints+`}`), 0o644); err != nil {
		t.Fatal(err)
	}
	trace = filepath.Join(dir, "trace.json")
	f, err := os.Create(trace)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	ok := `"outcome": {"ok": true, "status": "success"}`
	fmt.Fprintf(w, `{"run_id": "r", "level": "full", %s, "steps": [{"id": "each", "kind": "loop", %s, "decisions": [`, ok, ok)
	for range n {
		w.WriteString(`{"at": "each", "took": "continue"}, `)
	}
	w.WriteString(`{"at": "each", "took": "exit"}]}`)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(w, ",\n {\"id\": \"off#%d\", \"calls\": [\"lights.set\"], \"input\": {\"level\": 0}, \"output\": null, %s, \"t_ms\": 1}", i, ok)
	}
	w.WriteString("]}\n")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return plan, trace
}

// progressLine is one drawing of the replay line.
var progressLine = regexp.MustCompile(`^replay: (\d+)% of (\d+\.\d) MB, ([\d,]+) steps, \d+\.\d MB/s, \d+s *$`)

// TestReplayProgress: with --progress=always, replaying a large trace
// draws the line on standard error several times, each drawing a
// carriage return ahead, with counts that grow, and erases it at the end
// (spaces over it, then a carriage return); standard output holds the
// report alone. With auto and a standard error that is not a terminal,
// or with never, standard error stays empty.
func TestReplayProgress(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 30 MB trace")
	}
	const n = 200_000
	plan, trace := writeLoopTrace(t, n)
	st, _ := os.Stat(trace)
	var stdout, stderr bytes.Buffer
	if code := run([]string{"replay", trace, "--plan", plan, "--progress=always"}, nil, &stdout, &stderr); code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	if strings.Contains(stdout.String(), "\r") || !strings.Contains(stdout.String(), fmt.Sprintf("checked %d entries", n+1)) {
		t.Errorf("standard output is not the report alone:\n%q", stdout.String())
	}
	drawings := strings.Split(stderr.String(), "\r")
	if len(drawings) < 4 || drawings[0] != "" || drawings[len(drawings)-1] != "" || strings.Trim(drawings[len(drawings)-2], " ") != "" {
		t.Fatalf("want \\r-separated drawings ending in a blank one, got %q", stderr.String())
	}
	lastSteps, moved := -1, false
	for _, d := range drawings[1 : len(drawings)-2] {
		m := progressLine.FindStringSubmatch(d)
		if m == nil {
			t.Fatalf("drawing %q is not a progress line", d)
		}
		if want := fmt.Sprintf("%.1f", float64(st.Size())/(1<<20)); m[2] != want {
			t.Errorf("total %s MB, want %s", m[2], want)
		}
		steps, _ := strconv.Atoi(strings.ReplaceAll(m[3], ",", ""))
		pct, _ := strconv.Atoi(m[1])
		if steps < lastSteps || steps > n+1 || pct > 100 {
			t.Errorf("drawing %q after %d steps", d, lastSteps)
		}
		moved = moved || steps > 0 && pct > 0
		lastSteps = steps
	}
	if !moved {
		t.Errorf("no drawing shows work done: %q", drawings)
	}
	if blank := drawings[len(drawings)-2]; len(blank) < len(strings.TrimRight(drawings[len(drawings)-3], " ")) {
		t.Errorf("the erasing blanks (%d) are shorter than the last line %q", len(blank), drawings[len(drawings)-3])
	}

	for _, mode := range []string{"auto", "never"} {
		stderr.Reset()
		if code := run([]string{"replay", trace, "--plan", plan, "--progress=" + mode}, nil, &stdout, &stderr); code != ExitOK || stderr.Len() > 0 {
			t.Errorf("--progress=%s into a buffer: exit %d, standard error %q", mode, code, stderr.String())
		}
	}
}
