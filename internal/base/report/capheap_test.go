package report

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// at is a finding of rule in file at line:col, its message naming both.
func at(file, rule string, sev Severity, line, col int) Finding {
	f := finding(file, rule, sev, line)
	f.Column = col
	f.Message = fmt.Sprintf("%s at %d:%d", rule, line, col)
	return f
}

// TestCapByPosition: a cap lists the first N findings of a rule in a
// file by position, whatever order they are offered in: one offered
// before the last listed takes its place, and the one that leaves is
// counted, its severity too, so an error pushed out still fails the run.
func TestCapByPosition(t *testing.T) {
	c := NewCap(3)
	for _, f := range []Finding{
		at("t.json", "r1", Info, 9, 1),
		at("t.json", "r1", Error, 8, 1),
		at("t.json", "r1", Info, 7, 1),
		at("t.json", "r1", Info, 1, 5), // before all: 9:1 leaves
		at("t.json", "r1", Info, 1, 2), // 8:1, the error, leaves
		at("t.json", "r1", Info, 4, 1), // 7:1 leaves
		at("t.json", "r1", Info, 6, 1), // after the last listed: counted
	} {
		c.Admit(f)
	}
	got := messages(c.Take())
	want := []string{"t.json: info: r1 at 1:5", "t.json: info: r1 at 1:2", "t.json: info: r1 at 4:1"}
	if !slices.Equal(got, want) {
		t.Errorf("listed %q, want %q (in the order offered)", got, want)
	}
	if got, want := messages(c.Left()), []string{"t.json: error: 4 more r1 findings in this file are not listed"}; !slices.Equal(got, want) {
		t.Errorf("left %q, want %q", got, want)
	}
}

// TestCapTies: findings at one position are listed in the order offered,
// so a producer that places none (all at 0:0) gets the first it offers,
// as before the cap ordered by position.
func TestCapTies(t *testing.T) {
	c := NewCap(2)
	for i := range 5 {
		f := finding("t.json", "r1", Warning, 0)
		f.Column, f.Message = 0, fmt.Sprint("offered ", i)
		if c.Admit(f) != (i < 2) {
			t.Errorf("offer %d: listed %v", i, i < 2)
		}
	}
	if got, want := messages(c.Take()), []string{"t.json: warning: offered 0", "t.json: warning: offered 1"}; !slices.Equal(got, want) {
		t.Errorf("listed %q, want %q", got, want)
	}
}

// TestCapKeep: a producer offers a finding without its message, and
// completes the one listed with Keep: the position offered orders it,
// and the pointer Keep returns completes it; after a finding left out
// Keep keeps nothing.
func TestCapKeep(t *testing.T) {
	c := NewCap(1)
	head := Finding{Rule: "r1", Section: "5.8", Severity: Error, File: "t.json", Line: 5}
	if !c.Admit(head) {
		t.Fatal("the first finding is not listed")
	}
	f := c.Keep(at("t.json", "r1", Error, 5, 3))
	f.Hint = "completed"
	head.Line = 2
	if !c.Admit(head) {
		t.Fatal("a finding before the only one listed is not listed")
	}
	c.Keep(at("t.json", "r1", Error, 2, 7))
	head.Line = 9
	if c.Admit(head) || c.Keep(at("t.json", "r1", Error, 9, 1)) != nil {
		t.Error("a finding after the only one listed is listed, or kept when left out")
	}
	got := c.Take()
	if len(got) != 1 || got[0].Message != "r1 at 2:7" {
		t.Errorf("listed %+v, want r1 at 2:7", got)
	}
	if left := c.Left(); len(left) != 1 || left[0].Message != "2 more r1 findings in this file are not listed" {
		t.Errorf("left %+v", left)
	}
}

// TestCapLeaveAll: a run of findings is counted at once only when none
// would be listed: the cap is full and the run starts at or after the
// last listed.
func TestCapLeaveAll(t *testing.T) {
	c := NewCap(2)
	c.Admit(at("t.json", "r1", Error, 3, 1))
	if c.LeaveAll(at("t.json", "r1", Error, 9, 1), 100) {
		t.Error("counted a run while the cap has room")
	}
	c.Admit(at("t.json", "r1", Error, 5, 1))
	if c.LeaveAll(at("t.json", "r1", Error, 4, 1), 100) {
		t.Error("counted a run starting before the last listed")
	}
	if !c.LeaveAll(at("t.json", "r1", Error, 5, 1), 100) {
		t.Error("a run at the last listed's position, offered after it, is not counted")
	}
	if got, want := messages(c.Left()), []string{"t.json: error: 100 more r1 findings in this file are not listed"}; !slices.Equal(got, want) {
		t.Errorf("left %q, want %q", got, want)
	}
}

// TestCapTaken: findings handed on (Take) stay listed: a finding offered
// later before them is counted, not listed in their place, as they are
// already in a report.
func TestCapTaken(t *testing.T) {
	c := NewCap(1)
	c.Admit(at("t.json", "r1", Error, 5, 1))
	if got := c.Take(); len(got) != 1 {
		t.Fatalf("took %d, want 1", len(got))
	}
	if c.Admit(at("t.json", "r1", Error, 1, 1)) {
		t.Error("a finding took the place of one handed on")
	}
	if got := c.Take(); len(got) != 0 {
		t.Errorf("took %q again", messages(got))
	}
}

// TestReportCapByPosition: a report with a Cap lists the first of each
// rule by position: findings that come last but sit first (replay's
// document-level findings, placed at the trace's start) are listed.
func TestReportCapByPosition(t *testing.T) {
	r := &Report{Cap: NewCap(3)}
	for i := range 100 {
		r.Add(at("t.json", "trace-shape", Error, 2, 10+i))
	}
	r.Add(at("t.json", "trace-shape", Error, 1, 1))
	r.Sort()
	want := []string{"t.json: error: 98 more trace-shape findings in this file are not listed",
		"t.json: error: trace-shape at 1:1", "t.json: error: trace-shape at 2:10", "t.json: error: trace-shape at 2:11"}
	if got := messages(r.Findings); !slices.Equal(got, want) {
		t.Errorf("findings %q, want %q", got, want)
	}
	if r.Summary.Errors != 4 {
		t.Errorf("summary %+v, want 4 errors", r.Summary)
	}
}

// capOp is one offer of a generated sequence: file and rule pick a key,
// line and col a position (few, so positions tie), sev a severity, and
// part which of three caps it goes to before they are merged.
type capOp struct {
	file, rule, line, col, sev, part int
}

// checkCap offers ops to one cap, and again split among three caps
// merged into one (Merge, as replay settles its conditions), and checks
// both against the specification: the findings listed are, for each rule
// and file, the first max of all offered after a stable sort by
// position, in the order offered; each count says how many others there
// were and carries the gravest severity among them.
func checkCap(t *testing.T, max int, ops []capOp) {
	t.Helper()
	sevs := []Severity{Info, Warning, Error}
	fs := make([]Finding, len(ops))
	for i, o := range ops {
		fs[i] = Finding{Rule: fmt.Sprint("r", o.rule%3), Section: "1", Severity: sevs[o.sev%3], File: fmt.Sprint("f", o.file%2),
			Line: o.line % 4, Column: o.col % 3, Message: fmt.Sprint("offer ", i)}
	}
	// The specification: sort then take.
	type key struct{ file, rule string }
	byKey := map[key][]int{}
	for i, f := range fs {
		k := key{f.File, f.Rule}
		byKey[k] = append(byKey[k], i)
	}
	var want []string
	wantLeft := map[string]bool{}
	for k, is := range byKey {
		sorted := slices.Clone(is)
		slices.SortStableFunc(sorted, func(a, b int) int {
			return cmp.Or(cmp.Compare(fs[a].Line, fs[b].Line), cmp.Compare(fs[a].Column, fs[b].Column))
		})
		n := min(max, len(sorted))
		for _, i := range sorted[:n] {
			want = append(want, fs[i].Message)
		}
		if len(sorted) > n {
			grave := Info
			for _, i := range sorted[n:] {
				if graver(fs[i].Severity, grave) {
					grave = fs[i].Severity
				}
			}
			wantLeft[fmt.Sprintf("%s: %s: %d more %s findings in this file are not listed", k.file, grave, len(sorted)-n, k.rule)] = true
		}
	}
	// The order offered.
	slices.SortFunc(want, func(a, b string) int {
		var x, y int
		fmt.Sscanf(a, "offer %d", &x)
		fmt.Sscanf(b, "offer %d", &y)
		return cmp.Compare(x, y)
	})
	one := NewCap(max)
	parts := []*Cap{NewCap(max), NewCap(max), NewCap(max)}
	for i, f := range fs {
		one.Admit(f)
		parts[ops[i].part%3].Admit(f)
	}
	merged := NewCap(max)
	for _, p := range parts {
		merged.Merge(p, func(string) bool { return true })
	}
	for name, c := range map[string]*Cap{"one cap": one, "merged": merged} {
		var got []string
		for _, f := range c.Take() {
			got = append(got, f.Message)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%s, max %d: listed %q, want %q", name, max, got, want)
		}
		left := map[string]bool{}
		for _, m := range messages(c.Left()) {
			left[m] = true
		}
		if len(left) != len(wantLeft) {
			t.Fatalf("%s, max %d: left %v, want %v", name, max, left, wantLeft)
		}
		for m := range left {
			if !wantLeft[m] {
				t.Fatalf("%s, max %d: left %v, want %v", name, max, left, wantLeft)
			}
		}
	}
}

// TestCapProperty: over generated sequences of offers, many tying in
// position, what a cap lists equals sort-then-take-max of all offered
// (checkCap).
func TestCapProperty(t *testing.T) {
	seeds := 400
	if testing.Short() {
		seeds = 50
	}
	for seed := range seeds {
		r := rand.New(rand.NewPCG(uint64(seed), 7))
		ops := make([]capOp, r.IntN(120))
		for i := range ops {
			ops[i] = capOp{r.IntN(2), r.IntN(3), r.IntN(4), r.IntN(3), r.IntN(3), r.IntN(3)}
		}
		checkCap(t, 1+r.IntN(5), ops)
	}
}

// FuzzCap is TestCapProperty over sequences the fuzzer makes: each six
// bytes an offer, the first byte the cap's size.
func FuzzCap(f *testing.F) {
	f.Add([]byte{2, 0, 0, 3, 0, 0, 0, 0, 0, 2, 1, 2, 1, 0, 0, 1, 0, 2, 0})
	f.Add([]byte{1, 1, 2, 3, 2, 1, 0, 1, 2, 0, 0, 0, 2})
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 {
			return
		}
		max := 1 + int(b[0])%6
		var ops []capOp
		for b = b[1:]; len(b) >= 6; b = b[6:] {
			ops = append(ops, capOp{int(b[0]), int(b[1]), int(b[2]), int(b[3]), int(b[4]), int(b[5])})
		}
		checkCap(t, max, ops)
	})
}
