package lsp

import (
	"bytes"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/pilotage-dev/pilotage/internal/testsupport/lsptest"
	"github.com/pilotage-dev/pilotage/internal/testsupport/memtest"
	"github.com/pilotage-dev/pilotage/internal/testsupport/pdltest"
)

// Completion of statements in a large file compiles only the top-level
// statement around the cursor, or the probe alone between statements:
// the keywords an entry takes inside one (its closing line too), the
// file's between them. What it allocates is the file's tree, about 9
// times the text; compiling the whole text allocated 52 times it and
// held as much memory as the file's analysis (docs/performance.md, "The
// language server's memory").
func TestCompletionCompilesItsStatement(t *testing.T) {
	// -short's 2,000 entries (240 KB) measure the same ratio as 5,000
	// (9.3 – 9.7 times the text, 8.8 – 9.0), with less to analyse first.
	n := 5000
	if testing.Short() {
		n = 2000
	}
	src := pdltest.SmallEntries(n)
	mid := fmt.Sprintf(`entry "e%d" `, n/2)
	c := start(t)
	uri := c.Open(filepath.Join(t.TempDir(), "big.pdl"), string(src))
	c.WaitDiags(uri, 1)
	lines := bytes.Split(src, []byte("\n"))
	at := func(prefix string) int {
		for i, l := range lines {
			if bytes.HasPrefix(l, []byte(prefix)) {
				return i
			}
		}
		t.Fatalf("no line starts %q", prefix)
		return 0
	}
	for _, k := range []struct {
		line      int
		has, lack string
	}{
		{at(mid) + 1, "returns", "entry"},
		{at(mid) + 3, "returns", "entry"},
		{at(mid), "entry", "returns"},
		{at(mid) + 4, "entry", "returns"},
	} {
		var items []protocol.CompletionItem
		runtime.GC()
		n := memtest.Allocated(func() {
			if err := c.Call("textDocument/completion", lsptest.At(uri, k.line, 0), &items); err != nil {
				t.Fatal(err)
			}
		})
		labels := " " + labelsOf(items) + " "
		if !strings.Contains(labels, " "+k.has+" ") || strings.Contains(labels, " "+k.lack+" ") {
			t.Errorf("line %d: completion %s; want %s, not %s", k.line+1, labels, k.has, k.lack)
		}
		if max := 12 * uint64(len(src)); n > max {
			t.Errorf("line %d: completion allocated %d bytes, more than %d for %d bytes of text", k.line+1, n, max, len(src))
		}
	}
}
