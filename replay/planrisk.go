package replay

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// planRisk is the plan's own risk members (§5.6): max_risk ("" when
// absent or malformed) and max_risk_hints (nil then).
type planRisk struct {
	max   string
	hints *pilotage.RiskHints
}

// stepRisk reads a plan step's risk and risk_hints. Both are required on
// a step of kind step (data-model.md §5.6; §5.3: wherever risk appears,
// both representations are required) and optional on branches and loops.
func (p *Plan) stepRisk(s *Step, n jsonpos.Node) {
	risk, hints := n.Get("risk"), n.Get("risk_hints")
	var missing []string
	if !risk.Exists() {
		missing = append(missing, "risk")
	}
	if !hints.Exists() {
		missing = append(missing, "risk_hints")
	}
	if len(missing) > 0 && (s.Kind == pilotage.KindStep || len(missing) == 1) {
		p.add(RulePlanRisk, s.Pointer,
			fmt.Sprintf("plan step %q has no %s", report.Clip(s.ID), strings.Join(missing, " and ")),
			"a plan step carries both risk and risk_hints; branches and loops may carry neither, never one alone (§5.3)")
	}
	if risk.Exists() {
		s.Risk = p.riskName(s.Pointer+"/risk", risk)
	}
	if hints.Exists() {
		s.Hints = p.hints(s.Pointer+"/risk_hints", hints)
	}
}

func (p *Plan) riskName(ptr string, n jsonpos.Node) string {
	if !n.Is(jsonpos.String) || n.Str() == "" {
		p.add(RulePlanRisk, ptr, fmt.Sprintf("risk is %s, not a risk level's name", report.Clip(p.doc.Raw(n))), "")
		return ""
	}
	return n.Str()
}

// hints reads a risk_hints value: an object with the three booleans
// readOnly, destructive and openWorld, which agree with each other.
func (p *Plan) hints(ptr string, n jsonpos.Node) *pilotage.RiskHints {
	var w struct {
		ReadOnly    *bool `json:"readOnly"`
		Destructive *bool `json:"destructive"`
		OpenWorld   *bool `json:"openWorld"`
	}
	if !n.Is(jsonpos.Object) || json.Unmarshal(p.doc.Raw(n), &w) != nil || w.ReadOnly == nil || w.Destructive == nil || w.OpenWorld == nil {
		p.add(RulePlanRisk, ptr, fmt.Sprintf("risk hints %s are not {readOnly, destructive, openWorld} with three booleans", report.Clip(p.doc.Raw(n))),
			"risk_hints carries all three booleans (§5.3)")
		return nil
	}
	h := pilotage.RiskHints{ReadOnly: *w.ReadOnly, Destructive: *w.Destructive, OpenWorld: *w.OpenWorld}
	if !h.Consistent() {
		p.add(RulePlanRisk, ptr, "risk hints claim readOnly and destructive at once",
			"the engine-defined risk is consistent with risk_hints, and a read-only operation destroys nothing (§5.3)")
	}
	return &h
}

// checkRisk reads max_risk and max_risk_hints (both required, §5.6) and
// checks that max_risk_hints is the aggregate of the steps' hints: the
// maximum risk is computed from risk_hints, readOnly as the AND,
// destructive and openWorld as the OR (§5.3).
func (p *Plan) checkRisk(root jsonpos.Node) {
	for _, m := range []string{"max_risk", "max_risk_hints"} {
		if !root.Has(m) {
			p.add(RulePlanRisk, p.ptr, "plan has no "+m, "a plan carries max_risk and max_risk_hints (§5.6)")
		}
	}
	if n := root.Get("max_risk"); n.Exists() {
		p.risk.max = p.riskName(p.ptr+"/max_risk", n)
	}
	n := root.Get("max_risk_hints")
	if !n.Exists() {
		return
	}
	if p.risk.hints = p.hints(p.ptr+"/max_risk_hints", n); p.risk.hints == nil {
		return
	}
	var all []pilotage.RiskHints
	for _, s := range p.Steps {
		switch {
		case s.Hints != nil:
			all = append(all, *s.Hints)
		case s.Kind == pilotage.KindStep:
			return // the step's hints are missing or malformed, and reported
		}
	}
	if agg := pilotage.Aggregate(all...); agg != *p.risk.hints {
		p.add(RulePlanRisk, p.ptr+"/max_risk_hints",
			fmt.Sprintf("max_risk_hints is %s, but the aggregate of the steps' risk_hints is %s", hintsJSON(*p.risk.hints), hintsJSON(agg)),
			"readOnly is the AND, destructive and openWorld the OR of every step's hints; over no steps, read-only (§5.3)")
	}
}

// riskAgainst checks the plan's risk names against the Language's risk
// levels (the closed-sets guide's Risk levels table): every risk is a
// declared level (§1.5), a step's hints are its level's (data-model.md
// §5.3), and max_risk is the level whose hints are max_risk_hints
// (reading 9 as docs/readings.md amends it); when no level has them, any
// max_risk is inconsistent with them (§5.3) and is reported.
// Only what c lists is returned.
func (p *Plan) riskAgainst(l *Language, c *report.Cap) []report.Finding {
	if l == nil || len(l.Sets.RiskLevels) == 0 {
		return nil
	}
	var levels []pilotage.RiskLevel
	var names []string
	byName := map[string]pilotage.RiskHints{}
	for _, r := range l.Sets.RiskLevels {
		levels = append(levels, pilotage.RiskLevel{Name: r.Risk, Hints: r.Hints})
		names = append(names, r.Risk)
		byName[r.Risk] = r.Hints
	}
	var out []report.Finding
	offer := func(ptr, msg, hint string) {
		if f, ok := p.finding(c, RulePlanRisk, ptr, msg, hint); ok {
			out = append(out, f)
		}
	}
	known := func(ptr, risk string) bool {
		if _, ok := byName[risk]; ok {
			return true
		}
		offer(ptr, fmt.Sprintf("risk %q is not a risk level of the Language (%s)", report.Clip(risk), strings.Join(report.Clips(names), ", ")),
			"risk is an engine-defined value enumerated in the closed-sets guide (§1.5, §5.2)")
		return false
	}
	for _, s := range p.Steps {
		if s.Risk == "" || !known(s.Pointer+"/risk", s.Risk) || s.Hints == nil {
			continue
		}
		if want := byName[s.Risk]; want != *s.Hints {
			offer(s.Pointer+"/risk_hints",
				fmt.Sprintf("plan step %q has risk %q with hints %s, but the closed-sets guide gives %q the hints %s", report.Clip(s.ID), report.Clip(s.Risk), hintsJSON(*s.Hints), report.Clip(s.Risk), hintsJSON(want)),
				"the engine-defined risk is consistent with risk_hints (§5.3)")
		}
	}
	if p.risk.max == "" || !known(p.ptr+"/max_risk", p.risk.max) || p.risk.hints == nil {
		return out
	}
	want, ok := pilotage.MaxRisk(levels, *p.risk.hints)
	switch {
	case !ok:
		// No level has the aggregate's hints, so whatever level max_risk
		// names has other hints: inconsistent, which §5.3 forbids; the
		// Language's levels are at fault (lint's risk-levels-cover).
		offer(p.ptr+"/max_risk",
			fmt.Sprintf("max_risk is %s, whose hints %s are not max_risk_hints %s, and no risk level of the Language has exactly those", report.Quote(p.risk.max), hintsJSON(byName[p.risk.max]), hintsJSON(*p.risk.hints)),
			"§5.3: the engine-defined risk is consistent with risk_hints; the Language needs a level with exactly every aggregate of its levels (lint: risk-levels-cover)")
	case want != p.risk.max:
		offer(p.ptr+"/max_risk",
			fmt.Sprintf("max_risk is %s, but the level whose hints are max_risk_hints %s is %s", report.Quote(p.risk.max), hintsJSON(*p.risk.hints), strconv.Quote(want)),
			"reading 9: max_risk names the least risky declared level whose hints are each at least as risky as max_risk_hints, which is the level with exactly those hints")
	}
	return out
}

// hintsJSON writes hints as JSON, for messages.
func hintsJSON(h pilotage.RiskHints) string {
	b, _ := json.Marshal(h)
	return string(b)
}
