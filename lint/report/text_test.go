package report

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// Many findings on one long line, as lint gives a minified manifest with
// thousands of Languages: the text writer decoded the whole line for
// every finding, so 40,000 findings on a 400 KB line took minutes. Each
// snippet must still be the window around its own column. The bound is
// generous for a loaded CI machine; the fixed writer takes well under a
// second.
func TestManyFindingsOnOneLongLine(t *testing.T) {
	const n = 40000
	var line strings.Builder
	for i := 0; line.Len() < 400_000; i++ {
		fmt.Fprintf(&line, `{"id":"l%d/v1"},`, i)
	}
	src := line.String()
	r := &Report{Tool: "t", Sources: map[string][]byte{"m.json": []byte(src + "\n")}}
	step := len(src) / n
	for i := range n {
		r.Add(Finding{Rule: "r", Section: "4.2", Severity: Error, Message: "m", File: "m.json", Line: 1, Column: 1 + i*step})
	}
	start := time.Now()
	out := string(render(t, r, Text, Options{}))
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("writing %d findings on one line took %v", n, d)
	}
	last := n - 1
	want := "   1 | …" + src[last*step-40:last*step-40+10]
	if !strings.Contains(out, want) || !strings.Contains(out, "   1 | "+src[:10]) {
		t.Errorf("the first and last findings' snippets are not the windows around their columns: want %q and %q in the output", "   1 | "+src[:10], want)
	}
}
