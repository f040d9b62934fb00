// Package termshot turns a terminal screen captured with its colours
// (`tmux capture-pane -p -e`) into an SVG picture, so a test can
// regenerate the editor screenshots the docs show.
package termshot

import (
	"fmt"
	"html"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Cell geometry of the picture, in pixels, for a 14px monospace font.
const (
	cellW, cellH = 8.4, 18
	fontSize     = 14
)

// style is the SGR state of a run of text; colours are CSS values, ""
// for the terminal's default.
type style struct {
	fg, bg                      string
	bold, italic, under, invert bool
}

// palette are xterm's 16 colours.
var palette = [16]string{"#000000", "#cd0000", "#00cd00", "#cdcd00", "#0000ee", "#cd00cd", "#00cdcd", "#e5e5e5",
	"#7f7f7f", "#ff0000", "#00ff00", "#ffff00", "#5c5cff", "#ff00ff", "#00ffff", "#ffffff"}

const defaultFG, defaultBG = "#d0d0d0", "#1c1c1c"

// color256 is xterm's 256-colour table entry n.
func color256(n int) string {
	switch {
	case n < 16:
		return palette[n]
	case n < 232:
		n -= 16
		level := func(v int) int {
			if v == 0 {
				return 0
			}
			return 55 + 40*v
		}
		return fmt.Sprintf("#%02x%02x%02x", level(n/36), level(n/6%6), level(n%6))
	default:
		v := 8 + 10*(n-232)
		return fmt.Sprintf("#%02x%02x%02x", v, v, v)
	}
}

// apply reads one SGR parameter list ("1;38;5;160") into s.
func (s *style) apply(params string) {
	var ps []int
	for _, p := range strings.Split(params, ";") {
		n, _ := strconv.Atoi(p) // "" is 0, a reset, as terminals read it
		ps = append(ps, n)
	}
	for i := 0; i < len(ps); i++ {
		p := ps[i]
		ext := func() string { // 38/48 ;5;n or ;2;r;g;b
			if i+2 < len(ps) && ps[i+1] == 5 {
				i += 2
				return color256(ps[i] & 255)
			}
			if i+4 < len(ps) && ps[i+1] == 2 {
				i += 4
				return fmt.Sprintf("#%02x%02x%02x", ps[i-2]&255, ps[i-1]&255, ps[i]&255)
			}
			i = len(ps)
			return ""
		}
		switch {
		case p == 0:
			*s = style{}
		case p == 1:
			s.bold = true
		case p == 3:
			s.italic = true
		case p == 4:
			s.under = true
		case p == 7:
			s.invert = true
		case p == 22:
			s.bold = false
		case p == 23:
			s.italic = false
		case p == 24:
			s.under = false
		case p == 27:
			s.invert = false
		case 30 <= p && p <= 37:
			s.fg = palette[p-30]
		case 90 <= p && p <= 97:
			s.fg = palette[p-90+8]
		case p == 38:
			s.fg = ext()
		case p == 39:
			s.fg = ""
		case 40 <= p && p <= 47:
			s.bg = palette[p-40]
		case 100 <= p && p <= 107:
			s.bg = palette[p-100+8]
		case p == 48:
			s.bg = ext()
		case p == 49:
			s.bg = ""
		}
	}
}

// colours are the run's foreground and background, defaults and
// reverse video resolved.
func (s style) colours() (fg, bg string) {
	fg, bg = s.fg, s.bg
	if fg == "" {
		fg = defaultFG
	}
	if bg == "" {
		bg = defaultBG
	}
	if s.invert {
		fg, bg = bg, fg
	}
	return fg, bg
}

// SVG draws the captured screen, cols by rows cells; text past them is
// cut, escape sequences other than SGR are dropped.
func SVG(capture string, cols, rows int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%d" font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="%d">`+"\n",
		cellW*float64(cols), cellH*rows, fontSize)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="%s"/>`+"\n", defaultBG)
	var st style
	lines := strings.Split(strings.TrimRight(capture, "\n"), "\n")
	for row, line := range lines {
		if row >= rows {
			break
		}
		col := 0
		var run strings.Builder
		runStyle, runCol := st, 0
		flush := func() {
			if run.Len() > 0 {
				drawRun(&b, runStyle, run.String(), runCol, row)
			}
			run.Reset()
			runStyle, runCol = st, col
		}
		for i := 0; i < len(line); {
			if line[i] == 0x1b && i+1 < len(line) && line[i+1] == '[' {
				j := i + 2
				for j < len(line) && (line[j] < 0x40 || line[j] > 0x7e) {
					j++
				}
				if j < len(line) && line[j] == 'm' {
					flush()
					st.apply(line[i+2 : j])
					runStyle = st
				}
				i = j + 1
				continue
			}
			r, w := utf8.DecodeRuneInString(line[i:])
			i += w
			if col < cols && r >= ' ' {
				run.WriteRune(r)
				col++
			}
		}
		flush()
	}
	b.WriteString("</svg>\n")
	return []byte(b.String())
}

// drawRun is one run of cells in one style: its background, then its
// text stretched to the cells it covers so columns stay aligned.
func drawRun(b *strings.Builder, s style, text string, col, row int) {
	n := len([]rune(text))
	fg, bg := s.colours()
	x, y := cellW*float64(col), cellH*row
	if bg != defaultBG {
		fmt.Fprintf(b, `<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"/>`+"\n", x, y, cellW*float64(n), cellH, bg)
	}
	if strings.TrimSpace(text) == "" && !s.under {
		return
	}
	attrs := ""
	if s.bold {
		attrs += ` font-weight="bold"`
	}
	if s.italic {
		attrs += ` font-style="italic"`
	}
	if s.under {
		attrs += ` text-decoration="underline"`
	}
	fmt.Fprintf(b, `<text x="%.1f" y="%d" fill="%s" textLength="%.1f" lengthAdjust="spacingAndGlyphs" xml:space="preserve"%s>%s</text>`+"\n",
		x, y+cellH-5, fg, cellW*float64(n), attrs, html.EscapeString(text))
}
