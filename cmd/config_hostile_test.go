package cmd_test

import (
	"bytes"
	"fmt"
	"github.com/pilotage-dev/pilotage/internal/config"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/pilotage-dev/pilotage/internal/testsupport/memtest"
)

// Hostile files end in a clear error at a place in the file, in
// bounded memory: a 10 MB file is refused after reading MaxSize+1
// bytes, an alias bomb after maxValues values, deep nesting at maxDepth
// or at go-yaml's own limit.
func TestConfigHostile(t *testing.T) {
	bomb := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	for i := 'b'; i <= 'j'; i++ {
		prev := string(i - 1)
		bomb += fmt.Sprintf("%c: &%c [*%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s]\n", i, i, prev, prev, prev, prev, prev, prev, prev, prev, prev, prev)
	}
	bomb += "rules: *j\n"
	for _, c := range []struct {
		name, src, want string
	}{
		{"huge", "rules:\n" + strings.Repeat("  # padding padding padding padding padding padding padding\n", 10<<20/60), "pilotage.yaml:1:1: the file is larger than 64 KiB"},
		{"alias bomb", bomb, "values once its aliases are expanded"},
		{"deep flow", "rules: " + strings.Repeat("[", 20000) + strings.Repeat("]", 20000), "not valid YAML"},
		{"deep block", configNestBlock(40), "nested more than 32 deep"},
		{"many values", "ignore: [" + strings.Repeat("a,", 12000) + "a]\n", "more than 10000 values"},
		{"binary", "\x00\x01\x02rules", "not valid YAML"},
	} {
		t.Run(c.name, func(t *testing.T) {
			name := filepath.Join(t.TempDir(), config.FileName)
			if err := os.WriteFile(name, []byte(c.src), 0o644); err != nil {
				t.Fatal(err)
			}
			var err error
			n := memtest.Allocated(func() { _, err = config.Load(name) })
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error saying %q", err, c.want)
			}
			if !strings.HasPrefix(err.Error(), name+":") {
				t.Errorf("the error does not start at a place in the file: %v", err)
			}
			// The limit is ten times the most the file may hold.
			if limit := uint64(10 * config.MaxSize * 10); n > limit {
				t.Errorf("allocated %d bytes reading it, more than %d", n, limit)
			}
		})
	}
}

// TestConfigYAMLErrorLate: a syntax error on the last line of a file as large
// as MaxSize allows is placed on that line, not at the list go-yaml
// names (line 1), in a few parses (internal/base/yamlerr): at most 6
// times what one parse of the file allocates, measured in the same run
// (a dozen before, by halving the whole file).
func TestConfigYAMLErrorLate(t *testing.T) {
	var b strings.Builder
	b.WriteString("ignore:\n")
	for i := 0; b.Len() < config.MaxSize-200; i++ {
		fmt.Fprintf(&b, "  - generated/dir%05d/**\n", i)
	}
	lines := strings.Count(b.String(), "\n")
	b.WriteString("  bad: - value\n")
	src := []byte(b.String())
	one := memtest.Allocated(func() { _ = yaml.Unmarshal(src, &yaml.Node{}) })
	var err error
	n := memtest.Allocated(func() { _, err = config.Parse(config.FileName, src) })
	want := fmt.Sprintf("%s:%d:3: not valid YAML: did not find expected '-' indicator", config.FileName, lines+1)
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("got %v, want %s…", err, want)
	}
	t.Logf("placing the error allocated %.1f parses of the file", float64(n)/float64(one))
	if n > 6*one {
		t.Errorf("placing the error allocated %d bytes, %.1f parses of the file (%d bytes each); want at most 6", n, float64(n)/float64(one), one)
	}
}

func configNestBlock(depth int) string {
	var b strings.Builder
	b.WriteString("rules:\n")
	for i := range depth {
		fmt.Fprintf(&b, "%sk%d:\n", strings.Repeat(" ", i+2), i)
	}
	fmt.Fprintf(&b, "%sv: off\n", strings.Repeat(" ", depth+2))
	return b.String()
}

// FuzzConfigParse: any bytes give a configuration or diagnostics, never a
// panic, and every diagnostic has a line and a column.
func FuzzConfigParse(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/config/*.txtar")
	for _, s := range seeds {
		b, _ := os.ReadFile(s)
		f.Add(b)
	}
	f.Add([]byte("a: &a [*a]\n"))
	f.Add([]byte("rules: {x: off}\nrules: {}\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		cfg, err := config.Parse(config.FileName, src, "json-syntax")
		if err != nil {
			ds, ok := err.(config.Diagnostics)
			if !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			for _, d := range ds {
				if d.Line < 1 || d.Column < 1 {
					t.Fatalf("diagnostic without a place: %v", d)
				}
				// YAML breaks lines at \n, \r\n and a lone \r: at most this many.
				if lines := 1 + bytes.Count(src, []byte("\n")) + bytes.Count(src, []byte("\r")); d.Line > lines {
					t.Fatalf("diagnostic at line %d of a file of %d lines: %v", d.Line, lines, d)
				}
			}
			return
		}
		_ = cfg.Effective(configTestRules, false)
	})
}

// TestConfigDenseRefused: a pilotage.yaml of 64 KiB of `{a,a,…}`, 65,000
// nodes whose go-yaml tree would take 15 MB, 230 bytes a byte, is
// refused at the place its nodes pass the budget, allocating within 10
// bytes a byte of it plus 6 MiB; the most dense file that Parse reads
// is within the same bound.
func TestConfigDenseRefused(t *testing.T) {
	src := []byte("ignore: {" + strings.Repeat("a,", config.MaxSize/2-10) + "a}\n")
	var err error
	n := memtest.Allocated(func() { _, err = config.Parse(config.FileName, src) })
	if err == nil || !strings.Contains(err.Error(), "pilotage.yaml:1:") || !strings.Contains(err.Error(), "too dense to read") {
		t.Fatalf("got %v, want an error naming the place and the budget", err)
	}
	if limit := 10*uint64(len(src)) + 6<<20; n > limit {
		t.Errorf("refusing %d bytes allocated %d, over 10 a byte plus 6 MiB (%d)", len(src), n, limit)
	}
	// The most nodes the budget lets through, as keys without values.
	fits := []byte("x: {" + strings.Repeat("a,", 12000) + "a}\n")
	n = memtest.Allocated(func() { _, err = config.Parse(config.FileName, fits) })
	if err == nil || strings.Contains(err.Error(), "too dense") {
		t.Fatalf("a file within the budget: %v, want another complaint (key x is unknown)", err)
	}
	if limit := 10*uint64(len(fits)) + 6<<20; n > limit {
		t.Errorf("reading %d bytes allocated %d, over 10 a byte plus 6 MiB (%d)", len(fits), n, limit)
	}
}
