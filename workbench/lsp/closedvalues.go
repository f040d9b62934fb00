package lsp

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/closedsets"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/workbench/compile"
	"github.com/pilotage-dev/pilotage/workbench/pdl"
)

// subFeatureDoc explains a capability's sub-features (§4.1) by the
// operation section that states what declaring one allows.
var subFeatureDoc = map[string]struct{ meaning, section string }{
	pilotage.SubTopicFetch:   {"learn may fetch a guide by topic.", "6.2"},
	pilotage.SubSearch:       {"lookup accepts a free-text q filter.", "6.3"},
	pilotage.SubChangedSince: {"lookup offers the changed_since verb: entries changed since a catalog_version.", "6.3"},
	pilotage.SubTestRun:      {"execute accepts test_run: true, a Run without side effects.", "6.5.7"},
	pilotage.SubIdempotency:  {"execute honours idempotency keys, scoped to the Server; a replay is not an error.", "6.5.6"},
	pilotage.SubNarrate:      {"trace accepts a question and answers with a narration.", "6.6"},
}

// bareWordAt reports whether an unquoted word argument of st starts at
// from.
func bareWordAt(st *pdl.Stmt, from int) bool {
	return st != nil && slices.ContainsFunc(st.Args, func(a *pdl.Arg) bool {
		return int(a.Value.Pos.Offset) == from && a.Value.Kind() == pdl.KindIdent
	})
}

// subFeatureHover explains word when it is a sub-feature after its
// capability's name in a capabilities block.
func subFeatureHover(f *pdl.File, off, from int, word string) string {
	st := stmtAt(f, off)
	if st == nil || from == int(st.Pos.Offset) || !parentIs(f, st, "capabilities") {
		return ""
	}
	spec, ok := pilotage.LookupCapability(st.Keyword)
	if d, known := subFeatureDoc[word]; ok && known && slices.Contains(spec.SubFeatures, word) {
		return fmt.Sprintf("**%s.%s** — %s\n\nsub-feature of %s (%s, %s)", spec.Name, word, d.meaning, spec.Name, report.Cite("4.1"), report.Cite(d.section))
	}
	return ""
}

// closedValueHover explains word as a value of a closed set of the
// Language around off (or, outside every language block, of the first
// Language that has it), from the compiled closed sets, reserved values
// included: what the closed-sets guide says of it. "" when the file
// does not compile to a Server or no set holds word.
func closedValueHover(path string, text []byte, off int, word string) string {
	srv := compile.Source(path, text, compile.Options{Dir: filepath.Dir(path)}).Server
	if srv == nil {
		return ""
	}
	langs := slices.Clone(srv.Languages)
	// The Language whose block starts last before off holds the cursor.
	for i := len(langs) - 1; i > 0; i-- {
		if int(langs[i].Pos.Offset) <= off {
			langs[0], langs[i] = langs[i], langs[0]
			break
		}
	}
	for _, l := range langs {
		if doc := valueDoc(l, word); doc != "" {
			return doc
		}
	}
	return ""
}

// valueDoc is every row of l's closed sets whose value is word.
func valueDoc(l *language.Language, word string) string {
	s := &l.Sets
	var parts []string
	add := func(what, meaning, section string, facts ...string) {
		p := fmt.Sprintf("**%s** `%s` — %s", what, word, meaning)
		if len(facts) > 0 {
			p += "\n\n" + strings.Join(facts, " · ")
		}
		parts = append(parts, p+fmt.Sprintf("\n\n%s of `%s` (%s)", section, report.Clip(l.ID), report.Cite(sectionOf[section])))
	}
	reserved := func(ok bool) []string {
		if ok {
			return []string{"reserved"}
		}
		return nil
	}
	for _, c := range s.DiagnosticCodes {
		if c.Code == word {
			add("diagnostic code", c.Meaning, closedsets.SecDiagnosticCodes, reserved(slices.Contains(pilotage.ReservedCodes, word))...)
		}
	}
	for _, k := range s.Kinds {
		if k.Kind == word {
			add("kind", k.Meaning, closedsets.SecCatalogKinds, "callable: "+yes(k.Callable), "promoted: "+yes(k.Promoted))
		}
	}
	for _, r := range s.RiskLevels {
		if r.Risk == word {
			add("risk", r.Meaning, closedsets.SecRiskLevels, fmt.Sprintf("risk_hints: readOnly=%t, destructive=%t, openWorld=%t", r.Hints.ReadOnly, r.Hints.Destructive, r.Hints.OpenWorld))
		}
	}
	status := func(what, sec string, ss []closedsets.Status, fixed []pilotage.StatusSpec) {
		for _, st := range ss {
			if st.Status == word {
				effects := "none"
				if st.SideEffects {
					effects = "possible"
				}
				facts := []string{fmt.Sprintf("ok: %t", st.OK), "side effects: " + effects}
				isFixed := slices.ContainsFunc(fixed, func(f pilotage.StatusSpec) bool { return f.Status == word })
				add(what, st.Meaning, sec, append(facts, reserved(isFixed)...)...)
			}
		}
	}
	status("run status", closedsets.SecRunStatuses, s.RunStatuses, pilotage.ReservedRunStatuses)
	status("step status", closedsets.SecStepStatuses, s.StepStatuses, pilotage.ReservedStepStatuses)
	for _, t := range s.LoopTook {
		if t.Took == word {
			add("loop decision", t.Meaning, closedsets.SecLoopDecisions)
		}
	}
	return strings.Join(parts, "\n\n---\n\n")
}

// sectionOf is the Part II section each closed-sets guide table
// enumerates.
var sectionOf = map[string]string{
	closedsets.SecDiagnosticCodes: "5.5",
	closedsets.SecCatalogKinds:    "5.4",
	closedsets.SecRiskLevels:      "5.3",
	closedsets.SecRunStatuses:     "5.7",
	closedsets.SecStepStatuses:    "5.7",
	closedsets.SecLoopDecisions:   "5.8",
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
