package pdllint

import (
	"fmt"
	"slices"
	"testing"

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
