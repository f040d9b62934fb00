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

// checkOnlyCorpus writes init's Language, two programs of 2,000 steps
// (the second the first with a space more) and a corpus of 20 cases,
// alternating the two, each expecting only that its program is valid.
func checkOnlyCorpus(b *testing.B) (dir string, progs []string) {
	dir = b.TempDir()
	if _, err := scaffold.Init(scaffold.Params{Dir: dir, Template: "json"}); err != nil {
		b.Fatal(err)
	}
	var p strings.Builder
	p.WriteString(`{"output": "1", "steps": [`)
	for i := range 2000 {
		if i > 0 {
			p.WriteString(", ")
		}
		fmt.Fprintf(&p, `{"id": "s%d", "call": "todo.list", "with": {}}`, i)
	}
	p.WriteString("]}")
	for i, name := range []string{"a.json", "b.json"} {
		progs = append(progs, filepath.Join(dir, name))
		if err := os.WriteFile(progs[i], []byte(p.String()+strings.Repeat(" ", i)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	var y strings.Builder
	y.WriteString("cases:\n")
	for i := range 20 {
		fmt.Fprintf(&y, "  - name: case %d\n    principal: owner\n    program: ../%s\n    expect: {valid: true}\n", i, filepath.Base(progs[i%2]))
	}
	if err := os.WriteFile(filepath.Join(dir, "tests", "bench.yaml"), []byte(y.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	return dir, progs
}

// BenchmarkTestCheckOnly: pilotage test of 20 cases that expect only
// validate's answer, of two programs; docs/performance.md compares it
// with BenchmarkValidateEach, each program validated once.
func BenchmarkTestCheckOnly(b *testing.B) {
	dir, _ := checkOnlyCorpus(b)
	b.ResetTimer()
	for b.Loop() {
		if code := run([]string{"test", dir}, nil, io.Discard, io.Discard); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
}

// BenchmarkValidateEach: the baseline, pilotage validate of each of the
// two programs, in process.
func BenchmarkValidateEach(b *testing.B) {
	dir, progs := checkOnlyCorpus(b)
	b.ResetTimer()
	for b.Loop() {
		for _, p := range progs {
			if code := run([]string{"validate", "--lang", filepath.Join(dir, "todo.pdl"), "--principal", "owner", p}, nil, io.Discard, io.Discard); code != 0 {
				b.Fatalf("exit %d", code)
			}
		}
	}
}
