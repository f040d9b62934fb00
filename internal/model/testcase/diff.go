package testcase

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rogpeppe/go-internal/diff"
)

// The bounds of a diff: a failing case's finding quotes it whole, and a
// run keeps a file's findings until the file ends, so a diff must not
// grow with the value (an output nested 10,000 deep, 300,000
// diagnostics): it shows where want and got first differ and a window
// of each there.
const (
	diffDepth = 3   // levels indented; deeper ones are written on one line
	diffItems = 8   // items of an array or members of an object shown
	diffLine  = 120 // bytes of a line written on one line
	diffStr   = 200 // bytes of a string
	diffPtr   = 120 // bytes of the pointer
	diffWhole = 40  // lines of both whole values shown rather than the window
	diffTail  = 3   // items shown of those one list has past the other's end
)

// Diff says where want and got first differ, as a JSON Pointer, and
// shows a unified diff of bounded size: of the whole values when they
// render unclipped, else of each side's value at the pointer.
func Diff(want, got any) string {
	w, g := toJSON(want), toJSON(got)
	at, wa, ga, note := firstDifference(w, g)
	return showDiff(at, wa, ga, note, has(w), has(g))
}

// listDiff is Diff of two lists whose items match when equal once each
// got item is shown as its want states it (shown: a diagnostic's
// message is a substring, a trace entry's members those given): it
// converts only the item where they first differ, not the whole of a
// list of 300,000, and points at the member of it that differs.
func listDiff[T any](want, have []T, shown func(w, h T) T) string {
	i := 0
	for i < len(want) && i < len(have) && reflect.DeepEqual(want[i], shown(want[i], have[i])) {
		i++
	}
	at := "/" + strconv.Itoa(i)
	var whole [2]side
	if len(want)+len(have) <= diffItems {
		seen := slices.Clone(have)
		for j := range min(len(want), len(have)) {
			seen[j] = shown(want[j], have[j])
		}
		whole = [2]side{has(toJSON(want)), has(toJSON(seen))}
	}
	if i < len(want) && i < len(have) {
		w, g := toJSON(want[i]), toJSON(shown(want[i], have[i]))
		in, _, _, note := firstDifference(w, g)
		return showDiff(at+in, has(w), has(g), note, whole[0], whole[1])
	}
	w, g := side{}, side{}
	if i < len(want) {
		w = tail(want[i:])
	} else {
		g = tail(have[i:])
	}
	return showDiff(at, w, g, lengths(len(want), len(have)), whole[0], whole[1])
}

// tail is the items a longer list has past the shorter's end: the first
// few, and how many more.
func tail[T any](items []T) side {
	n := min(len(items), diffTail)
	return side{v: toJSON(items[:n]), ok: true, more: len(items) - n}
}

// side is one side's value at the pointer, absent where it holds none.
type side struct {
	v    any
	ok   bool
	more int // items of a list past those v shows
}

// toJSON is v as encoding/json decodes it, numbers as written.
func toJSON(v any) any {
	b, ok := v.(json.RawMessage)
	if !ok {
		var err error
		if b, err = json.Marshal(v); err != nil {
			return fmt.Sprint(v)
		}
	}
	d := json.NewDecoder(bytes.NewReader(nullable(b)))
	d.UseNumber()
	var out any
	if d.Decode(&out) != nil {
		return string(b)
	}
	return out
}

// firstDifference walks want and got together, members in key order and
// items in order, down to the first place they differ: the pointer
// there, each side's value there and a note of what differs. Each value
// is visited at most once, so the walk is linear in the values.
func firstDifference(want, got any) (string, side, side, string) {
	var tokens []string // the pointer's tokens, innermost first
	var w, g side
	var note string
	var walk func(want, got any) bool // reports whether they differ
	walk = func(want, got any) bool {
		switch x := want.(type) {
		case map[string]any:
			y, ok := got.(map[string]any)
			if !ok {
				break
			}
			for _, k := range slices.Sorted(maps.Keys(x)) {
				v, ok := y[k]
				if !ok {
					w, g, note = has(x), has(y), fmt.Sprintf("got has no member %q", k)
					return true
				}
				if walk(x[k], v) {
					tokens = append(tokens, escape(k))
					return true
				}
			}
			for _, k := range slices.Sorted(maps.Keys(y)) {
				if _, ok := x[k]; !ok {
					w, g, note = has(x), has(y), fmt.Sprintf("want has no member %q", k)
					return true
				}
			}
			return false
		case []any:
			y, ok := got.([]any)
			if !ok {
				break
			}
			for i := range min(len(x), len(y)) {
				if walk(x[i], y[i]) {
					tokens = append(tokens, strconv.Itoa(i))
					return true
				}
			}
			if len(x) == len(y) {
				return false
			}
			n := min(len(x), len(y))
			if len(x) > n {
				w = tail(x[n:])
			} else {
				g = tail(y[n:])
			}
			note = lengths(len(x), len(y))
			tokens = append(tokens, strconv.Itoa(n))
			return true
		}
		if equal(want, got) {
			return false
		}
		w, g = has(want), has(got)
		return true
	}
	walk(want, got)
	var at strings.Builder
	for _, t := range slices.Backward(tokens) {
		at.WriteString("/" + t)
	}
	return at.String(), w, g, note
}

func lengths(w, g int) string {
	return fmt.Sprintf("want %d item%s, got %d", w, plural(w), g)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// equal compares two decoded scalars, or a scalar and a value, as
// JSON: numbers by value.
func equal(a, b any) bool {
	x, ok := a.(json.Number)
	y, ok2 := b.(json.Number)
	if !ok || !ok2 {
		return a == b
	}
	if x == y {
		return true
	}
	fx, e1 := x.Float64()
	fy, e2 := y.Float64()
	return e1 == nil && e2 == nil && fx == fy
}

// escape writes a member name as a JSON Pointer token (RFC 6901).
func escape(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

// showDiff writes the pointer (its middle cut when long), what differs
// there, and a unified diff of the two whole values when both render in
// full in at most diffWhole lines, else of the two sides at the pointer.
func showDiff(at string, w, g side, note string, wholeW, wholeG side) string {
	var b strings.Builder
	if at != "" || note != "" {
		b.WriteString("first difference at " + cmp.Or(clipMiddle(at), "the top"))
		if note != "" {
			b.WriteString(" (" + note + ")")
		}
		b.WriteByte('\n')
	}
	rw, cw := render(wholeW)
	rg, cg := render(wholeG)
	if !wholeW.ok || !wholeG.ok || cw || cg || bytes.Count(rw, []byte{'\n'})+bytes.Count(rg, []byte{'\n'}) > diffWhole {
		rw, _ = render(w)
		rg, _ = render(g)
	}
	d := string(diff.Diff("want", rw, "got", rg))
	// The first line restates the two names: "diff want got".
	_, rest, _ := strings.Cut(d, "\n")
	b.WriteString(rest)
	return b.String()
}

// clipMiddle keeps a long pointer's start and end, where a reader looks.
func clipMiddle(p string) string {
	if len(p) <= diffPtr {
		return p
	}
	head, tail := p[:diffPtr/3], p[len(p)-2*diffPtr/3:]
	return fmt.Sprintf("%s…(%d bytes)…%s", head, len(p)-len(head)-len(tail), tail)
}

// render writes a side's value indented diffDepth levels deep, deeper
// values on one line clipped to diffLine bytes, at most diffItems items
// of each array or object with a count of the rest: at most about
// diffItems^diffDepth short lines whatever the value.
// It reports whether it left anything out.
func render(s side) ([]byte, bool) {
	if !s.ok {
		return nil, false
	}
	b := &bytes.Buffer{}
	indented(b, s.v, 0)
	b.WriteByte('\n')
	if s.more > 0 {
		fmt.Fprintf(b, "… and %d more\n", s.more)
	}
	return b.Bytes(), bytes.Contains(b.Bytes(), []byte("…"))
}

func indented(b *bytes.Buffer, v any, depth int) {
	var items []any
	var keys []string
	open, close := "[", "]"
	switch x := v.(type) {
	case []any:
		items = x
	case map[string]any:
		open, close = "{", "}"
		keys = slices.Sorted(maps.Keys(x))
		for _, k := range keys {
			items = append(items, x[k])
		}
	default:
		compact(b, v, diffLine)
		return
	}
	if depth >= diffDepth || len(items) == 0 {
		compact(b, v, diffLine)
		return
	}
	pad := strings.Repeat("  ", depth+1)
	b.WriteString(open)
	for i, item := range items {
		if i == diffItems {
			fmt.Fprintf(b, "\n%s… and %d more", pad, len(items)-i)
			break
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n" + pad)
		if keys != nil {
			str(b, keys[i])
			b.WriteString(": ")
		}
		indented(b, item, depth+1)
	}
	b.WriteString("\n" + pad[2:] + close)
}

// compact writes v on one line in at most about budget bytes, "…" where
// it stops; it returns the budget left, and stops descending once it is
// spent, so a value nested 10,000 deep costs budget levels.
func compact(b *bytes.Buffer, v any, budget int) int {
	if budget <= 0 {
		b.WriteString("…")
		return 0
	}
	start := b.Len()
	switch x := v.(type) {
	case []any:
		b.WriteByte('[')
		for i, item := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			if budget-(b.Len()-start) <= 0 {
				fmt.Fprintf(b, "… %d more", len(x)-i)
				break
			}
			compact(b, item, budget-(b.Len()-start))
		}
		b.WriteByte(']')
	case map[string]any:
		b.WriteByte('{')
		for i, k := range slices.Sorted(maps.Keys(x)) {
			if i > 0 {
				b.WriteString(", ")
			}
			if budget-(b.Len()-start) <= 0 {
				fmt.Fprintf(b, "… %d more", len(x)-i)
				break
			}
			str(b, k)
			b.WriteString(": ")
			compact(b, x[k], budget-(b.Len()-start))
		}
		b.WriteByte('}')
	case string:
		str(b, x)
	default:
		j, _ := json.Marshal(x)
		b.Write(j)
	}
	return budget - (b.Len() - start)
}

// str writes s quoted, clipped to diffStr bytes with its length said.
func str(b *bytes.Buffer, s string) {
	n := len(s)
	if n > diffStr {
		s = s[:diffStr]
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
	}
	j, _ := json.Marshal(s)
	b.Write(j)
	if n > diffStr {
		fmt.Fprintf(b, "… (%d bytes)", n)
	}
}

func has(v any) side { return side{v: v, ok: true} }
