package report

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// Many findings on long lines, as lint gives a minified manifest with
// thousands of Languages: the text writer decoded the whole line for
// every finding, so 40,000 findings on a 400 KB line took minutes. Here
// they alternate between two such files, in no order, so neither the
// line index of a file nor the decoded line may be redone per finding.
// Each snippet must still be the window around its own column. The bound
// is generous for a loaded CI machine; the writer takes about a second.
func TestManyFindingsOnLongLines(t *testing.T) {
	const n = 40000
	var line strings.Builder
	for i := 0; line.Len() < 400_000; i++ {
		fmt.Fprintf(&line, `{"id":"l%d/v1"},`, i)
	}
	src := line.String()
	r := &Report{Tool: "t", Sources: map[string][]byte{"a.json": []byte(src + "\n"), "b.json": []byte("\n" + src)}}
	step := len(src) / n
	for i := range n {
		r.Add(Finding{Rule: "r", Section: "4.2", Severity: Error, Message: "m", File: "a.json", Line: 1, Column: 1 + i*step},
			Finding{Rule: "r", Section: "4.2", Severity: Error, Message: "m", File: "b.json", Line: 2, Column: 1 + i*step})
	}
	start := time.Now()
	out := string(render(t, r, Text, Options{}))
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("writing %d findings took %v", 2*n, d)
	}
	last := (n - 1) * step
	for _, want := range []string{"   1 | " + src[:10], "   1 | …" + src[last-40:last-30], "   2 | " + src[:10], "   2 | …" + src[last-40:last-30]} {
		if !strings.Contains(out, want) {
			t.Errorf("want %q in the output: the first and last findings of each file quote the window around their column", want)
		}
	}
}
