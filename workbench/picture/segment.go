package picture

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
)

// segmentBoxes is the most boxes one Graphviz layout gets. dot's ordering
// and placement grow much faster than the graph (a 2,000-step plan takes
// seconds in one piece, its 100-box parts milliseconds each), so a large
// plan is laid out in parts of its top-level sequence, stacked top to
// bottom, each part ending in a box that names the next.
const segmentBoxes = 100

// segments cuts the drawing's top-level sequence into drawings of at most
// segmentBoxes boxes (a single larger loop or sub-program stays whole).
// Edges between parts end at the parts' connector boxes. A drawing small
// enough is returned as it is.
func (d *drawing) segments() []*drawing {
	var parts [][]item
	n := 0
	for _, it := range d.items {
		k := boxes(it)
		if len(parts) == 0 || n+k > segmentBoxes && n > 0 {
			parts = append(parts, nil)
			n = 0
		}
		parts[len(parts)-1] = append(parts[len(parts)-1], it)
		n += k
	}
	if len(parts) <= 1 {
		return []*drawing{d}
	}
	part := map[string]int{}
	for i, p := range parts {
		for _, it := range p {
			walkBoxes(it, func(b *box) { part[b.key] = i })
		}
	}
	out := make([]*drawing, len(parts))
	for i, p := range parts {
		s := &drawing{overlay: d.overlay, items: p}
		if i == 0 {
			s.title, s.legend = d.title, d.legend
		} else {
			s.items = append([]item{{box: &box{key: "from_part", lines: []string{fmt.Sprintf("from part %d", i)}, shape: shapeLink, level: -1, ran: true}}}, s.items...)
		}
		if i < len(parts)-1 {
			s.items = append(s.items, item{box: &box{key: "to_part", lines: []string{fmt.Sprintf("on in part %d", i+2)}, shape: shapeLink, level: -1, ran: true}})
		}
		out[i] = s
	}
	linked := map[[2]int]bool{}
	for _, e := range d.edges {
		from, to := part[e.from], part[e.to]
		switch {
		case from == to:
			out[from].edges = append(out[from].edges, e)
		case from < to:
			out[from].edges = append(out[from].edges, edge{from: e.from, to: "to_part", label: e.label, taken: e.taken, skipped: e.skipped})
			if !linked[[2]int{to, 0}] {
				linked[[2]int{to, 0}] = true
				out[to].edges = append(out[to].edges, edge{from: "from_part", to: e.to, taken: e.taken})
			}
		}
	}
	return out
}

// boxes counts the boxes of an item.
func boxes(it item) int {
	n := 0
	walkBoxes(it, func(*box) { n++ })
	return n
}

func walkBoxes(it item, fn func(*box)) {
	if it.box != nil {
		fn(it.box)
		return
	}
	for _, in := range it.cluster.items {
		walkBoxes(in, fn)
	}
}

// svgSize reads the size Graphviz gave an SVG document.
var svgSize = regexp.MustCompile(`<svg width="([0-9.]+)pt" height="([0-9.]+)pt"`)

// graphvizIDs are the element ids Graphviz numbers per document.
var graphvizIDs = regexp.MustCompile(`id="((?:graph|node|edge|clust|a_node|a_edge)[0-9]+)"`)

// MaxBoxes is the most boxes an SVG picture draws. Each box costs about
// 1.2 KB of SVG and Graphviz's layout of it more: a plan of 20,000 steps
// (a valid 1 MB program) takes 167 – 258 MB and 50 s to write 24 MB of
// picture that no one reads. 5,000 boxes draw in about 3 s and 80 MB,
// and hold every plan of homeflow's 256 KiB program limit (3,784 steps).
const MaxBoxes = 5000

// TooLargeError is a plan with more than MaxBoxes boxes, drawn as SVG.
type TooLargeError struct{ Boxes int }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the plan has %d boxes to draw, more than the %d of an SVG picture (docs/pictures.md)", e.Boxes, MaxBoxes)
}

// Drawable is nil when the graph can be drawn in format, and a
// *TooLargeError for an SVG picture of more than MaxBoxes boxes: a verb
// checks it before it writes anything.
func Drawable(format string, g *Graph) error {
	if format != "svg" {
		return nil // dot and mermaid are text in the plan's size
	}
	return layout(g).drawable()
}

func (d *drawing) drawable() error {
	n := 0
	for _, it := range d.items {
		n += boxes(it)
	}
	if n > MaxBoxes {
		return &TooLargeError{Boxes: n}
	}
	return nil
}

// drawSVG lays out the drawing, in parts when it is large, and returns
// one SVG document.
func drawSVG(d *drawing, links bool) ([]byte, error) {
	if err := d.drawable(); err != nil {
		return nil, err
	}
	parts := d.segments()
	if len(parts) == 1 {
		return renderSVG(dotText(d, links))
	}
	var body bytes.Buffer
	width, y := 0.0, 0.0
	for i, p := range parts {
		svg, err := renderSVG(dotText(p, links))
		if err != nil {
			return nil, err
		}
		m := svgSize.FindSubmatch(svg)
		start := bytes.Index(svg, []byte("<svg"))
		if m == nil || start < 0 {
			return nil, fmt.Errorf("part %d of the graph: Graphviz wrote no SVG size", i+1)
		}
		w, _ := strconv.ParseFloat(string(m[1]), 64)
		h, _ := strconv.ParseFloat(string(m[2]), 64)
		// Each part is a document of its own; its ids are made unique
		// and it is placed below the previous part.
		// and it is placed below the previous part, in the outer
		// document's units (points, as Graphviz writes sizes).
		part := graphvizIDs.ReplaceAll(svg[start:], []byte(fmt.Sprintf(`id="part%d_$1"`, i+1)))
		part = bytes.Replace(part, m[0], []byte(fmt.Sprintf(`<svg x="0" y="%.2f" width="%s" height="%s"`, y, m[1], m[2])), 1)
		body.Write(part)
		body.WriteByte('\n')
		width, y = max(width, w), y+h
	}
	var out bytes.Buffer
	fmt.Fprintf(&out, `<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<svg width="%.2fpt" height="%.2fpt" viewBox="0 0 %.2f %.2f" xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">
`, width, y, width, y)
	out.Write(body.Bytes())
	out.WriteString("</svg>\n")
	return out.Bytes(), nil
}
