package picture

import (
	"fmt"
	"io"
	"strings"
)

// Mermaid writes the graph as a Mermaid flowchart, the diagram GitHub
// renders inside Markdown.
func Mermaid(w io.Writer, g *Graph) error {
	_, err := io.WriteString(w, mermaidText(layout(g)))
	return err
}

func mermaidText(d *drawing) string {
	var b strings.Builder
	fmt.Fprintf(&b, "---\ntitle: %s\n---\nflowchart TD\n", mermaidTitle(d.title))
	for _, it := range d.items {
		mermaidItem(&b, it, "  ")
	}
	for i, e := range d.edges {
		arrow := "-->"
		switch {
		case e.back:
			arrow = "-.->"
		case e.taken:
			arrow = "==>"
		case e.skipped:
			arrow = "-.->"
		}
		if e.label != "" {
			fmt.Fprintf(&b, "  %s %s|%s| %s\n", e.from, arrow, mermaidLabel(e.label), e.to)
		} else {
			fmt.Fprintf(&b, "  %s %s %s\n", e.from, arrow, e.to)
		}
		switch {
		case e.flagged:
			fmt.Fprintf(&b, "  linkStyle %d stroke:#c00000,stroke-width:3px,stroke-dasharray:6 3\n", i)
		case e.taken:
			fmt.Fprintf(&b, "  linkStyle %d stroke:#1d4ed8,stroke-width:3px\n", i)
		}
	}
	if len(d.legend) > 0 {
		b.WriteString("  subgraph legend [\"risk levels\"]\n    direction LR\n")
		for i, l := range d.legend {
			fmt.Fprintf(&b, "    legend%d[%s]:::%s\n", i, mermaidLabel(l.Name+"\n"+hintsText(l.Hints)), mermaidClass(severity(l.Hints)))
		}
		b.WriteString("  end\n")
	}
	for i, p := range palette {
		fmt.Fprintf(&b, "  classDef r%d fill:%s,stroke:%s%s\n", i, p.fill, p.stroke, mermaidLine(p.style))
	}
	fmt.Fprintf(&b, "  classDef rn fill:%s,stroke:%s\n", noRisk.fill, noRisk.stroke)
	b.WriteString("  classDef notrun fill:#f4f4f4,color:#666666,stroke:#999999,stroke-dasharray:2 2\n")
	b.WriteString("  classDef flagged stroke:#c00000,stroke-width:4px\n")
	return b.String()
}

func mermaidLine(style string) string {
	switch style {
	case "dashed":
		return ",stroke-dasharray:6 3"
	case "bold":
		return ",stroke-width:3px"
	case "double":
		return ",stroke-width:5px"
	}
	return ""
}

func mermaidItem(b *strings.Builder, it item, indent string) {
	if c := it.cluster; c != nil {
		fmt.Fprintf(b, "%ssubgraph %s [%s]\n", indent, c.key, mermaidLabel(c.label))
		for _, in := range c.items {
			mermaidItem(b, in, indent+"  ")
		}
		fmt.Fprintf(b, "%send\n", indent)
		return
	}
	x := it.box
	label := mermaidLabel(strings.Join(x.lines, "\n"))
	var open, close string
	switch x.shape {
	case shapeStart:
		open, close = "((", "))"
	case shapeEnd:
		open, close = "(((", ")))"
	case shapeBranch:
		open, close = "{", "}"
	case shapeLoop:
		open, close = "{{", "}}"
	case shapeSub:
		open, close = "[[", "]]"
	default:
		open, close = "(", ")"
	}
	class := ""
	switch {
	case x.node == nil:
	case !x.ran:
		class = ":::notrun"
	default:
		class = ":::" + mermaidClass(x.level)
	}
	fmt.Fprintf(b, "%s%s%s%s%s%s\n", indent, x.key, open, label, close, class)
	if x.flagged {
		fmt.Fprintf(b, "%sclass %s flagged\n", indent, x.key)
	}
}

// mermaidLabel quotes s for a Mermaid label. Inside quotes Mermaid reads
// entity codes, so every character that could end the label, start
// markup or an entity is written as one: a step id or a condition cannot
// break out of its box or inject HTML.
func mermaidLabel(s string) string {
	return `"` + escape(s, func(r rune) string { return mermaidEntities[r] }) + `"`
}

var mermaidEntities = map[rune]string{
	'"': "#quot;", '#': "#35;", '<': "#lt;", '>': "#gt;", '&': "#amp;", '|': "#124;", '`': "#96;", '\n': "<br/>",
	// Mermaid finds a %%{init: …}%% directive anywhere in the text, a
	// label's included, and would take its configuration (theme, CSS).
	'%': "#37;",
}

// mermaidTitle writes the front-matter title as a YAML double-quoted
// string.
func mermaidTitle(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", " ", "%", `\x25`) // no %%{…}%% directive (mermaidEntities)
	return `"` + r.Replace(s) + `"`
}

// mermaidClass names the class of a risk level's palette entry.
func mermaidClass(level int) string {
	if level < 0 || level >= len(palette) {
		return "rn"
	}
	return fmt.Sprintf("r%d", level)
}
