package picture

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/pilotage-dev/pilotage/internal/base/report"
)

const font = "Helvetica,Arial,sans-serif"

// DOT writes the graph in Graphviz's DOT language.
func DOT(w io.Writer, g *Graph) error {
	_, err := io.WriteString(w, dotText(layout(g), false))
	return err
}

// dotText writes a drawing as DOT; links makes every box a link to its
// step's details (#detail-KEY), for HTML reports.
func dotText(d *drawing, links bool) string {
	var b strings.Builder
	b.WriteString("digraph plan {\n")
	fmt.Fprintf(&b, "  graph [label=%s, labelloc=t, fontname=%s, fontsize=14, nodesep=0.3, ranksep=0.35];\n", dotQuote(d.title), dotQuote(font))
	fmt.Fprintf(&b, "  node [fontname=%s, fontsize=11, shape=box, style=\"rounded,filled\", fillcolor=\"#ffffff\", color=\"#555555\"];\n", dotQuote(font))
	fmt.Fprintf(&b, "  edge [fontname=%s, fontsize=10, color=\"#555555\"];\n", dotQuote(font))
	for _, it := range d.items {
		dotItem(&b, it, "  ", d.overlay)
	}
	for _, e := range d.edges {
		fmt.Fprintf(&b, "  %s -> %s", e.from, e.to)
		var attrs []string
		if e.label != "" {
			attrs = append(attrs, "label="+dotQuote(e.label))
		}
		switch {
		case e.flagged:
			attrs = append(attrs, `color="#c00000"`, `fontcolor="#c00000"`, "penwidth=2.5", `style=dashed`, `class="flagged"`)
		case e.taken:
			attrs = append(attrs, `color="#1d4ed8"`, "penwidth=2.5", `class="taken"`)
		case e.skipped:
			attrs = append(attrs, `style=dotted`, `color="#999999"`, `fontcolor="#777777"`, `class="skipped"`)
		}
		if e.back {
			attrs = append(attrs, "style=dashed", "constraint=false")
		}
		if len(attrs) > 0 {
			fmt.Fprintf(&b, " [%s]", strings.Join(attrs, ", "))
		}
		b.WriteString(";\n")
	}
	if len(d.legend) > 0 {
		b.WriteString("  subgraph cluster_legend {\n    label=\"risk levels\"; style=\"rounded\"; color=\"#999999\"; fontsize=11;\n")
		for i, l := range d.legend {
			lv := severity(l.Hints)
			fmt.Fprintf(&b, "    legend%d [label=%s%s];\n", i, dotQuote(l.Name+"\n"+hintsText(l.Hints)), dotPaint(lv, true))
		}
		for i := 1; i < len(d.legend); i++ {
			fmt.Fprintf(&b, "    legend%d -> legend%d [style=invis];\n", i-1, i)
		}
		b.WriteString("  }\n")
	}
	b.WriteString("}\n")
	return b.String()
}

func dotItem(b *strings.Builder, it item, indent string, links bool) {
	if c := it.cluster; c != nil {
		style := "rounded"
		if c.dashed {
			style = "rounded,dashed"
		}
		fmt.Fprintf(b, "%ssubgraph %s {\n%s  label=%s; style=%s; color=\"#777777\"; fontsize=11;\n", indent, c.key, indent, dotQuote(c.label), dotQuote(style))
		for _, in := range c.items {
			dotItem(b, in, indent+"  ", links)
		}
		fmt.Fprintf(b, "%s}\n", indent)
		return
	}
	x := it.box
	attrs := []string{"label=" + dotQuote(strings.Join(x.lines, "\n"))}
	switch x.shape {
	case shapeStart:
		fmt.Fprintf(b, "%s%s [label=\"start\", shape=circle, style=filled, fillcolor=\"#eeeeee\", fontsize=9, width=0.5, fixedsize=true];\n", indent, x.key)
		return
	case shapeEnd:
		fmt.Fprintf(b, "%s%s [label=\"end\", shape=doublecircle, style=filled, fillcolor=\"#eeeeee\", fontsize=9, width=0.45, fixedsize=true];\n", indent, x.key)
		return
	case shapeLink:
		fmt.Fprintf(b, "%s%s [label=%s, shape=box, style=\"dashed,rounded\", color=\"#777777\", fontcolor=\"#555555\", fontsize=10];\n", indent, x.key, dotQuote(x.lines[0]))
		return
	}
	if x.node != nil {
		attrs = append(attrs, "id="+dotQuote("step-"+x.key), "tooltip="+dotQuote(report.Clip(x.node.ID)))
		if links {
			attrs = append(attrs, "href="+dotQuote("#detail-"+x.key))
		}
	}
	s := dotPaint(x.level, x.ran)
	switch x.shape {
	case shapeBranch:
		s = strings.Replace(s, `style="rounded,filled`, `shape=diamond, style="filled`, 1)
	case shapeLoop:
		s = strings.Replace(s, `style="rounded,filled`, `shape=hexagon, style="filled`, 1)
	case shapeSub:
		s = strings.Replace(s, `style="rounded,filled`, `shape=component, style="filled`, 1)
	}
	if x.flagged {
		s += `, color="#c00000", penwidth=3`
	}
	if links {
		attrs = append(attrs, "class="+dotQuote(boxClass(x)))
	}
	fmt.Fprintf(b, "%s%s [%s%s];\n", indent, x.key, strings.Join(attrs, ", "), s)
}

// boxClass is the SVG class of a box in a report: whether it ran and
// whether findings concern it, for the page's script and its tests.
func boxClass(x *box) string {
	var class []string
	if x.ran {
		class = append(class, "ran")
	} else {
		class = append(class, "notrun")
	}
	if x.flagged {
		class = append(class, "flagged")
	}
	return strings.Join(class, " ")
}

// dotPaint gives the attributes of a risk level's box; a step that never
// ran is greyed, its risk still told by its text and line.
func dotPaint(level int, ran bool) string {
	p := paint(level)
	fill, font := p.fill, "#000000"
	if !ran {
		fill, font = "#f4f4f4", "#666666"
	}
	style := "rounded,filled"
	extra := ""
	switch p.style {
	case "dashed":
		style += ",dashed"
	case "bold":
		extra = ", penwidth=2.5"
	case "double":
		extra = ", penwidth=2.5, peripheries=2"
	}
	return fmt.Sprintf(`, style=%s, fillcolor="%s", color="%s", fontcolor="%s"%s`, strconv.Quote(style), fill, p.stroke, font, extra)
}

// dotQuote writes s as a DOT double-quoted string: quotes and backslashes
// escaped, so a label cannot end the string or smuggle in an escape such
// as \N; newlines become DOT's centred line breaks.
func dotQuote(s string) string {
	return `"` + escape(s, func(r rune) string {
		switch r {
		case '"', '\\':
			return `\` + string(r)
		case '\n':
			return `\n`
		}
		return ""
	}) + `"`
}

// escape rewrites s rune by rune: sub gives a rune's replacement, or ""
// to keep it; other control characters become spaces, so no label
// carries a bell or a carriage return into a picture.
func escape(s string, sub func(rune) string) string {
	var b strings.Builder
	for _, r := range s {
		switch x := sub(r); {
		case x != "":
			b.WriteString(x)
		case r < 0x20 || r == 0x7f:
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
