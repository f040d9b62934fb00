package testcase

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/pilotage-dev/pilotage/internal/model/language"
)

// Coverage is what a corpus exercises of one Language, against all it
// could (pilotage test --coverage).
type Coverage struct {
	Language string
	PDL      string
	dims     []dimension
	promoted map[string]bool
}

type dimension struct {
	name string
	all  []string
	seen map[string]bool
}

// Dimension is one row of a coverage report.
type Dimension struct {
	Name      string   `json:"name"`
	Exercised []string `json:"exercised"`
	Never     []string `json:"never"`
}

// Dimensions a Coverage counts, in report order.
const (
	DimEntries    = "catalog entries"
	DimConstructs = "constructs"
	DimCodes      = "diagnostic codes"
	DimRisks      = "risk levels"
	DimStatuses   = "step statuses"
	DimPrincipals = "principals"
)

// NewCoverage starts counting for Language l of srv, read from pdl.
func NewCoverage(srv *language.Server, l *language.Language, pdl string) *Coverage {
	cv := &Coverage{Language: l.ID, PDL: pdl, promoted: map[string]bool{}}
	promotedKinds := map[string]bool{}
	for _, k := range l.Sets.Kinds {
		promotedKinds[k.Kind] = k.Promoted
	}
	var entries, constructs, principals []string
	for _, e := range srv.Catalog {
		if len(e.Languages) > 0 && !slices.Contains(e.Languages, l.ID) {
			continue
		}
		cv.promoted[e.ID] = promotedKinds[e.Kind]
		entries = append(entries, e.ID)
	}
	g := &l.Grammar
	for _, c := range []struct{ name, member string }{{"call", g.Call}, {"branch", g.Branch}, {"loop", g.Loop}, {"run", g.Run}} {
		if c.member != "" {
			constructs = append(constructs, c.name)
		}
	}
	codes, risks, _, statuses := ClosedSets(l)
	for _, p := range srv.Principals {
		principals = append(principals, p.Name)
	}
	for _, d := range []struct {
		name string
		all  []string
	}{{DimEntries, entries}, {DimConstructs, constructs}, {DimCodes, codes}, {DimRisks, risks}, {DimStatuses, statuses}, {DimPrincipals, principals}} {
		cv.dims = append(cv.dims, dimension{name: d.name, all: d.all, seen: map[string]bool{}})
	}
	return cv
}

func (cv *Coverage) mark(dim, v string) {
	for i := range cv.dims {
		if cv.dims[i].name == dim && v != "" {
			cv.dims[i].seen[v] = true
		}
	}
}

// Add counts what one case's answers exercised.
func (cv *Coverage) Add(c *Case, got *Got) {
	cv.mark(DimPrincipals, c.Principal)
	if got == nil || got.Validate == nil {
		return
	}
	for _, d := range got.Validate.Diagnostics {
		cv.mark(DimCodes, d.Code)
	}
	if p := got.Validate.Plan; p != nil {
		cv.mark(DimRisks, p.MaxRisk)
		for _, s := range p.Steps {
			cv.mark(DimRisks, s.Risk)
		}
	}
	if x := got.Execute; x != nil && x.Trace != nil {
		for _, s := range x.Trace.Steps {
			cv.mark(DimStatuses, s.Outcome.Status)
			switch {
			case s.Kind == "branch" || s.Kind == "loop":
				cv.mark(DimConstructs, s.Kind)
			case len(s.Calls) > 0 && cv.promoted[s.Calls[0]]:
				cv.mark(DimConstructs, "run")
			case len(s.Calls) > 0:
				cv.mark(DimConstructs, "call")
			}
			for _, id := range s.Calls {
				cv.mark(DimEntries, id)
			}
		}
	}
}

// Dimensions lists, for each dimension, what was exercised and what
// never was, in the Language's own order.
func (cv *Coverage) Dimensions() []Dimension {
	var out []Dimension
	for _, d := range cv.dims {
		row := Dimension{Name: d.name, Exercised: []string{}, Never: []string{}}
		for _, v := range d.all {
			if d.seen[v] {
				row.Exercised = append(row.Exercised, v)
			} else {
				row.Never = append(row.Never, v)
			}
		}
		out = append(out, row)
	}
	return out
}

// WriteText writes the coverage as a table: counts, then what is never
// reached.
func WriteText(w io.Writer, cvs []*Coverage) error {
	var b strings.Builder
	for _, cv := range cvs {
		fmt.Fprintf(&b, "coverage of %s (%s):\n", cv.Language, cv.PDL)
		for _, d := range cv.Dimensions() {
			fmt.Fprintf(&b, "  %-17s %d/%d", d.Name, len(d.Exercised), len(d.Exercised)+len(d.Never))
			if len(d.Never) > 0 {
				fmt.Fprintf(&b, "  never: %s", strings.Join(d.Never, ", "))
			}
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON writes a json report, rep, and the coverage as one object:
// {"report": …, "coverage": [{language, pdl, dimensions}]}, what
// pilotage test --coverage --format json prints.
func WriteJSON(w io.Writer, rep []byte, cvs []*Coverage) error {
	type langCov struct {
		Language   string      `json:"language"`
		PDL        string      `json:"pdl"`
		Dimensions []Dimension `json:"dimensions"`
	}
	out := struct {
		Report   json.RawMessage `json:"report"`
		Coverage []langCov       `json:"coverage"`
	}{Report: rep, Coverage: []langCov{}}
	for _, cv := range cvs {
		out.Coverage = append(out.Coverage, langCov{cv.Language, cv.PDL, cv.Dimensions()})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// ClosedSets are the values of l's closed sets a case can name:
// diagnostic codes, risk levels, run and step statuses.
func ClosedSets(l *language.Language) (codes, risks, runs, steps []string) {
	for _, x := range l.Sets.DiagnosticCodes {
		codes = append(codes, x.Code)
	}
	for _, x := range l.Sets.RiskLevels {
		risks = append(risks, x.Risk)
	}
	for _, x := range l.Sets.RunStatuses {
		runs = append(runs, x.Status)
	}
	for _, x := range l.Sets.StepStatuses {
		steps = append(steps, x.Status)
	}
	return codes, risks, runs, steps
}
