// Package picture draws plans, Runs and replays: a plan (§5.6) as a graph
// of its steps, branches, loops and sub-programs coloured by risk, written
// as DOT, Mermaid or SVG, and reports that lay a trace (§5.8) over that
// graph as self-contained HTML or as Markdown for CI summaries.
package picture

import (
	"fmt"
	"strings"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// Graph is a plan as a tree of constructs, in plan order, ready to draw.
type Graph struct {
	// MaxRisk and MaxHints are the plan's aggregate risk (§5.6).
	MaxRisk  string
	MaxHints *pilotage.RiskHints
	// Root lists the top-level nodes; Nodes every node in plan order.
	Root  []*Node
	Nodes []*Node
	// Levels are the risk levels the steps use, least risky first.
	Levels []Level
	byID   map[string]*Node
	// traced is set once traces are laid over the graph.
	traced bool
}

// Node is one plan step.
type Node struct {
	ID, Kind string
	Calls    []string
	Risk     string
	Hints    *pilotage.RiskHints
	// Cond is a branch's condition or a loop's list, when the program is
	// known (a plan does not carry it).
	Cond string
	// Arms are a branch's arms in the plan's order, Body a loop's steps.
	Arms []*Arm
	Body []*Node
	// Sub is set when the step runs a promoted program (§5.8.3).
	Sub *Sub
	// Parent is the enclosing branch or loop, nil at top level; Arm is
	// the arm of Parent the step is in, when Parent is a branch.
	Parent *Node
	Arm    *Arm
	// Run is what traces say of the step; nil when no trace is laid over.
	Run *Overlay
}

// Arm is one arm of a branch.
type Arm struct {
	Label string
	Steps []*Node
	// Taken counts the branch decisions that chose this arm; Findings
	// the replay findings that concern the arm as a whole (a step of it
	// ran though the branch chose another arm).
	Taken, Findings int
}

// Sub is a step's call of a promoted program.
type Sub struct {
	Ref string
	// Expanded says the program's own entries appear in traces under the
	// calling step's id (trace_subprogram expanded); otherwise it is one
	// opaque entry.
	Expanded bool
}

// Level is a risk level as the legend shows it.
type Level struct {
	Name string
	// Hints are nil when the steps of the level carry none.
	Hints *pilotage.RiskHints
}

// Info is what the program and the Language add to a plan: a plan names
// neither a branch's condition nor which calls run promoted programs.
type Info struct {
	// Conds maps a branch step's id to its condition and a loop's to the
	// list it iterates.
	Conds map[string]string
	// Runs maps the id of a step that runs a promoted program to the
	// program reference.
	Runs map[string]string
	// Subprograms is the Language's trace_subprogram: "expanded" or
	// "opaque" ("" reads as opaque, the default).
	Subprograms string
}

// FromPlan builds the graph of a plan. Steps whose arm or loop names no
// construct of the plan are drawn at top level, as replay's plan-shape
// finding reports them.
func FromPlan(p *pilotage.Plan, info Info) *Graph {
	g := &Graph{MaxRisk: p.MaxRisk, byID: map[string]*Node{}}
	first := map[string]*pilotage.PlanStep{}
	if p.MaxRisk != "" {
		h := p.MaxRiskHints
		g.MaxHints = &h
	}
	for i, s := range p.Steps {
		if g.byID[s.ID] != nil {
			continue // a duplicate id; the first one is the step
		}
		n := &Node{ID: s.ID, Kind: s.Kind, Calls: s.Calls, Risk: s.Risk, Hints: s.RiskHints, Cond: info.Conds[s.ID]}
		if ref, ok := info.Runs[s.ID]; ok {
			n.Sub = &Sub{Ref: ref, Expanded: info.Subprograms == "expanded"}
		}
		for _, l := range s.Arms {
			n.Arms = append(n.Arms, &Arm{Label: l})
		}
		g.byID[s.ID], first[s.ID] = n, &p.Steps[i]
		g.Nodes = append(g.Nodes, n)
	}
	for _, n := range g.Nodes {
		s := first[n.ID]
		var parent *Node
		label := ""
		switch {
		case s.Arm != nil:
			parent, label = g.byID[s.Arm.Branch], s.Arm.Label
			if parent != nil && parent.Kind != pilotage.KindBranch {
				parent = nil
			}
		case s.Loop != "":
			parent = g.byID[s.Loop]
			if parent != nil && parent.Kind != pilotage.KindLoop {
				parent = nil
			}
		}
		if parent == nil || ancestor(n, parent) {
			g.Root = append(g.Root, n)
			continue
		}
		n.Parent = parent
		if parent.Kind == pilotage.KindLoop {
			parent.Body = append(parent.Body, n)
			continue
		}
		a := parent.arm(label)
		a.Steps = append(a.Steps, n)
		n.Arm = a
	}
	g.levels()
	return g
}

// ancestor reports whether n is p or one of p's ancestors, which would
// make placing n under p a cycle.
func ancestor(n, p *Node) bool {
	for a := p; a != nil; a = a.Parent {
		if a == n {
			return true
		}
	}
	return false
}

// arm returns the branch's arm with the label, adding it when the plan
// did not list it in arms.
func (n *Node) arm(label string) *Arm {
	for _, a := range n.Arms {
		if a.Label == label {
			return a
		}
	}
	a := &Arm{Label: label}
	n.Arms = append(n.Arms, a)
	return a
}

// levels collects the risk levels the steps use, least risky first.
func (g *Graph) levels() {
	seen := map[string]bool{}
	for _, n := range g.Nodes {
		if n.Risk == "" || seen[n.Risk] {
			continue
		}
		seen[n.Risk] = true
		g.Levels = append(g.Levels, Level{Name: n.Risk, Hints: n.Hints})
	}
	// Stable: levels of equal riskiness keep their order of first use.
	for i := 1; i < len(g.Levels); i++ {
		for j := i; j > 0 && severity(g.Levels[j].Hints) < severity(g.Levels[j-1].Hints); j-- {
			g.Levels[j], g.Levels[j-1] = g.Levels[j-1], g.Levels[j]
		}
	}
}

// Node returns the node of a plan step id, or nil.
func (g *Graph) Node(id string) *Node { return g.byID[id] }

// severity ranks hints 0 (read-only) to 3 (writes, destroys, reaches
// out), -1 for none: the index of the colour and line style a level is
// drawn with.
func severity(h *pilotage.RiskHints) int {
	if h == nil {
		return -1
	}
	return h.Riskiness()
}

// Title is the graph's heading: the plan's max_risk (§7.3 gates on it).
func (g *Graph) Title() string {
	if g.MaxRisk == "" {
		return "plan: " + report.Count(len(g.Nodes), "step")
	}
	return fmt.Sprintf("plan: %s, max_risk %s (%s)", report.Count(len(g.Nodes), "step"), g.MaxRisk, hintsText(g.MaxHints))
}

// hintsText writes the hints as the legend shows them.
func hintsText(h *pilotage.RiskHints) string {
	if h == nil {
		return "no risk_hints"
	}
	var out []string
	if h.ReadOnly {
		out = append(out, "readOnly")
	} else {
		out = append(out, "not readOnly")
	}
	if h.Destructive {
		out = append(out, "destructive")
	}
	if h.OpenWorld {
		out = append(out, "openWorld")
	}
	return strings.Join(out, ", ")
}
