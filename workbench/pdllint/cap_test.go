package pdllint

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/testsupport/memtest"
	"github.com/pilotage-dev/pilotage/lint"
	"github.com/pilotage-dev/pilotage/lint/rules"
)

// TestCapAndDisable: the compiler's findings are capped per rule and
// file as it raises them, and what it left out is counted in the report
// (one finding per rule and file, in the summary once); a disabled PDL
// rule is neither listed nor counted.
func TestCapAndDisable(t *testing.T) {
	src := mustRead(t, "testdata/guides.pdl")
	in := []*lint.Input{{File: "a.pdl", Src: src}, {File: "b.pdl", Src: src}}
	rep, err := Run(rules.All(), in, lint.Config{MaxPerRule: 2, Disabled: map[string]bool{"pdl-duplicate": true}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range rep.Findings {
		got = append(got, fmt.Sprintf("%s %d:%d %s: %s", f.File, f.Line, f.Column, f.Rule, f.Message))
	}
	want := []string{
		"a.pdl 0:0 pdl-required: 2 more pdl-required findings in this file are not listed",
		"a.pdl 13:3 pdl-required: guide extra has no content",
		"a.pdl 14:3 pdl-required: guide extra has no content",
		"b.pdl 0:0 pdl-required: 2 more pdl-required findings in this file are not listed",
		"b.pdl 13:3 pdl-required: guide extra has no content",
		"b.pdl 14:3 pdl-required: guide extra has no content",
	}
	if !slices.Equal(got, want) {
		t.Errorf("findings:\n%q\nwant:\n%q", got, want)
	}
	if rep.Summary.Errors != 6 {
		t.Errorf("summary %+v, want 6 errors", rep.Summary)
	}
}

// TestItemFindingsLinear: the findings of one catalog entry are placed
// at its members by reading the entry statement again once, not once a
// finding: an entry whose languages list names n unknown Languages (with
// pdl-reference off, lint's catalog-entry-languages reports each) read
// itself again n times, 40 s of lint for 20,000 ids (review 16). What
// Run allocates counts the reading without timing it: 4x the ids may
// allocate at most 6x the bytes; reading again per finding allocated
// about 16x.
func TestItemFindingsLinear(t *testing.T) {
	head := mustRead(t, "../scaffold/templates/json/todo.pdl")
	allocated := func(n int) uint64 {
		var src strings.Builder
		src.Write(head)
		src.WriteString("entry \"big\" kind=action risk=safe {\n  languages \"todo/v1\"")
		for i := range n {
			fmt.Fprintf(&src, " \"zz%d\"", i)
		}
		src.WriteString("\n  returns `{}`\n}\n")
		in := []*lint.Input{{File: "big.pdl", Src: []byte(src.String())}}
		cfg := lint.Config{Disabled: map[string]bool{"pdl-reference": true}}
		var least uint64
		for range 3 {
			var rep *report.Report
			a := memtest.Allocated(func() {
				var err error
				if rep, err = Run(rules.All(), in, cfg); err != nil {
					t.Fatal(err)
				}
			})
			if rep.Summary.Errors < n {
				t.Fatalf("%d unknown Languages gave %d errors", n, rep.Summary.Errors)
			}
			if least == 0 || a < least {
				least = a
			}
		}
		return least
	}
	small, large := allocated(1000), allocated(4000)
	t.Logf("1,000 ids allocated %d bytes, 4,000 %d (%.1fx)", small, large, float64(large)/float64(small))
	if large > 6*small {
		t.Errorf("4x the unknown Languages of one entry allocated %.1fx the bytes (%d then %d)", float64(large)/float64(small), small, large)
	}
}
