package picture

import (
	"fmt"
	"strconv"
	"strings"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// drawing is a graph laid out as boxes, clusters and edges, before it is
// written in a diagram language: DOT and Mermaid write the same drawing,
// so the two pictures of a plan cannot disagree.
type drawing struct {
	title string
	// overlay is set when traces are laid over the plan.
	overlay bool
	items   []item
	edges   []edge
	// legend lists the risk levels, least risky first.
	legend []Level
}

// shape is how a box is drawn; each writer maps it to its own shapes.
type shape int

const (
	shapeStep shape = iota
	shapeBranch
	shapeLoop
	shapeSub
	shapeStart
	shapeEnd
	// shapeLink joins the parts a large plan is laid out in (segments).
	shapeLink
)

// item is a box or a cluster of items.
type item struct {
	box     *box
	cluster *cluster
}

type box struct {
	key   string
	lines []string
	shape shape
	// level indexes the palette (severity), -1 for no risk.
	level int
	node  *Node // nil for start and end
	// ran is false when a trace is laid over and the step never ran;
	// flagged when findings concern it.
	ran, flagged bool
}

type cluster struct {
	key, label string
	items      []item
	dashed     bool
}

type edge struct {
	from, to, label string
	// back is a loop's return to its head; taken marks the path a trace
	// followed, skipped an arm no Run took, flagged an arm findings
	// concern.
	back, taken, skipped, flagged bool
}

// exit is a way out of a sequence, waiting for the next box: the edge's
// origin and label, and whether traces took it.
type exit struct {
	from, label                  string
	taken, skipped, bck, flagged bool
}

// layout turns the graph into a drawing.
func layout(g *Graph) *drawing {
	d := &drawing{title: g.Title(), legend: g.Levels, overlay: g.overlaid()}
	keys := map[*Node]string{}
	for i, n := range g.Nodes {
		keys[n] = "s" + strconv.Itoa(i)
	}
	l := &layouter{d: d, keys: keys, overlay: g.overlaid()}
	d.items = append(d.items, item{box: &box{key: "start", lines: []string{"start"}, shape: shapeStart, level: -1, ran: true}})
	exits := l.seq(&d.items, g.Root, []exit{{from: "start", taken: l.overlay}})
	// "end" closes a subgraph in Mermaid, so the end box is "stop".
	d.items = append(d.items, item{box: &box{key: "stop", lines: []string{"end"}, shape: shapeEnd, level: -1, ran: true}})
	l.join(exits, "stop")
	return d
}

type layouter struct {
	d       *drawing
	keys    map[*Node]string
	overlay bool
}

// join draws the pending exits into the box to.
func (l *layouter) join(exits []exit, to string) {
	for _, x := range exits {
		l.d.edges = append(l.d.edges, edge{from: x.from, to: to, label: x.label, taken: x.taken, skipped: x.skipped, back: x.bck, flagged: x.flagged})
	}
}

// seq draws a sequence of steps into items, entered from the exits given,
// and returns the exits of its last step.
func (l *layouter) seq(items *[]item, nodes []*Node, in []exit) []exit {
	for _, n := range nodes {
		in = l.node(items, n, in)
	}
	return in
}

func (l *layouter) node(items *[]item, n *Node, in []exit) []exit {
	key := l.keys[n]
	b := &box{key: key, lines: l.lines(n), level: severity(n.Hints), node: n, ran: !l.overlay || n.Run.Ran(), flagged: n.Run.Flagged()}
	if n.Risk == "" {
		b.level = -1
	}
	l.join(in, key)
	ran := l.overlay && b.ran
	switch n.Kind {
	case pilotage.KindBranch:
		b.shape = shapeBranch
		*items = append(*items, item{box: b})
		var out []exit
		for _, a := range n.Arms {
			x := exit{from: key, label: report.Clip(a.Label), taken: l.overlay && a.Taken > 0, skipped: l.overlay && a.Taken == 0, flagged: a.Findings > 0}
			if l.overlay {
				x.label = armText(a)
			}
			if len(a.Steps) == 0 {
				out = append(out, x)
				continue
			}
			out = append(out, l.seq(items, a.Steps, []exit{x})...)
		}
		if len(n.Arms) == 0 {
			out = append(out, exit{from: key, taken: ran})
		}
		return out
	case pilotage.KindLoop:
		b.shape = shapeLoop
		c := &cluster{key: "cluster_" + key, label: "loop " + report.Clip(n.ID)}
		c.items = append(c.items, item{box: b})
		label := "each item"
		if l.overlay && n.Run != nil && n.Run.Iterations > 0 {
			label = fmt.Sprintf("%d iterations", n.Run.Iterations)
		}
		body := l.seq(&c.items, n.Body, []exit{{from: key, label: label, taken: l.overlay && n.Run.iterated()}})
		for i := range body {
			body[i].bck = true
			body[i].label = ""
		}
		l.join(body, key)
		*items = append(*items, item{cluster: c})
		return []exit{{from: key, label: "done", taken: ran}}
	}
	if n.Sub != nil {
		b.shape = shapeSub
		if n.Sub.Expanded {
			mode := "expanded"
			c := &cluster{key: "cluster_" + key, label: "sub-program " + report.Clip(n.Sub.Ref) + " (" + mode + ")", dashed: true}
			c.items = append(c.items, item{box: b})
			*items = append(*items, item{cluster: c})
			return []exit{{from: key, taken: ran}}
		}
	}
	*items = append(*items, item{box: b})
	return []exit{{from: key, taken: ran}}
}

// lines are a box's text: id, what it does, its risk level by name (so
// the level reads without colour), and what traces say.
func (l *layouter) lines(n *Node) []string {
	out := []string{n.ID}
	switch {
	case n.Kind == pilotage.KindBranch && n.Cond != "":
		out = append(out, "if "+n.Cond)
	case n.Kind == pilotage.KindLoop && n.Cond != "":
		out = append(out, "for each in "+n.Cond)
	case n.Kind == pilotage.KindBranch:
		out = append(out, "branch")
	case n.Kind == pilotage.KindLoop:
		out = append(out, "loop")
	}
	switch {
	case n.Sub != nil && n.Sub.Expanded:
		out = append(out, "runs "+n.Sub.Ref)
	case n.Sub != nil:
		out = append(out, "runs "+n.Sub.Ref+" (opaque)")
	case len(n.Calls) > 0:
		out = append(out, "calls "+strings.Join(n.Calls, ", "))
	}
	if n.Risk != "" {
		out = append(out, "risk "+n.Risk)
	}
	if l.overlay {
		out = append(out, n.Run.lines()...)
	}
	// A line is clipped as every report clips what it quotes: Graphviz
	// lays a label out in time that grows faster than its length (an 8 MB
	// step id took 174 s and 1.1 GB to draw).
	for i, s := range out {
		out[i] = report.Clip(s)
	}
	return out
}

// armText labels an arm edge with how often traces took it.
func armText(a *Arm) string {
	s := fmt.Sprintf("%s (taken %d×)", report.Clip(a.Label), a.Taken)
	if a.Taken == 0 {
		s = report.Clip(a.Label) + " (not taken)"
	}
	if a.Findings > 0 {
		s += " ⚠ ran anyway"
	}
	return s
}

// palette holds the fill and line of each severity, least risky first;
// the line style and the "risk NAME" text keep levels apart in black and
// white.
var palette = []struct{ fill, stroke, style string }{
	{"#e3f4e1", "#2e7d32", "solid"},
	{"#fff3c4", "#8a6d00", "dashed"},
	{"#ffd8b0", "#b45309", "bold"},
	{"#f7c1c1", "#b91c1c", "double"},
}

// noRisk is the palette entry of branches, loops and unrated steps.
var noRisk = struct{ fill, stroke, style string }{"#ffffff", "#555555", "solid"}

func paint(level int) struct{ fill, stroke, style string } {
	if level < 0 || level >= len(palette) {
		return noRisk
	}
	return palette[level]
}
