package cmd

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/workbench/scaffold"
)

// benchCorpus writes init's Language and a corpus of n cases, each the
// shopping program with its own input and expected output, with each
// input also as a file for pilotage run.
func benchCorpus(b *testing.B, n int) (dir string, inputs []string) {
	dir = b.TempDir()
	if _, err := scaffold.Init(scaffold.Params{Dir: dir, Template: "json"}); err != nil {
		b.Fatal(err)
	}
	var y strings.Builder
	y.WriteString("cases:\n")
	for i := range n {
		fmt.Fprintf(&y, "  - name: case %d\n    principal: owner\n    program: ../programs/shopping.json\n    input: {item: item%d}\n    expect: {status: success, output: [bread, eggs, item%d]}\n", i, i, i)
		in := filepath.Join(dir, fmt.Sprintf("in%d.json", i))
		if err := os.WriteFile(in, fmt.Appendf(nil, `{"item": "item%d"}`, i), 0o644); err != nil {
			b.Fatal(err)
		}
		inputs = append(inputs, in)
	}
	if err := os.WriteFile(filepath.Join(dir, "tests", "bench.yaml"), []byte(y.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	return dir, inputs
}

// BenchmarkTestCorpus: pilotage test over 1,000 cases (plus the six of
// init's corpus), in process; docs/performance.md compares it with
// BenchmarkRunOneByOne, the same cases through pilotage run.
func BenchmarkTestCorpus(b *testing.B) {
	dir, _ := benchCorpus(b, 1000)
	b.ResetTimer()
	for b.Loop() {
		if code := run([]string{"test", dir}, nil, io.Discard, io.Discard); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
}

// BenchmarkRunOneByOne: the baseline, each of the 1,000 cases as one
// pilotage run invocation (in process: the ~60 ms a process takes to
// start comes on top, per case).
func BenchmarkRunOneByOne(b *testing.B) {
	dir, inputs := benchCorpus(b, 1000)
	pdl, prog := filepath.Join(dir, "todo.pdl"), filepath.Join(dir, "programs", "shopping.json")
	b.ResetTimer()
	for b.Loop() {
		for _, in := range inputs {
			if code := run([]string{"run", "--lang", pdl, "--principal", "owner", "--input", in, prog}, nil, io.Discard, io.Discard); code != 0 {
				b.Fatalf("exit %d", code)
			}
		}
	}
}
