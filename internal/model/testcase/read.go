package testcase

import (
	"bytes"
	"errors"
	"hash/maphash"
	"iter"
	"path/filepath"

	"go.yaml.in/yaml/v3"

	"github.com/pilotage-dev/pilotage/internal/base/yamlcost"
)

// Read reads a case file as Parse does, into the same cases (All), but
// keeps no YAML tree, so its File cannot be rewritten (Update, Marshal:
// Parse is for --update). A file in block style, `cases:` at the start of
// a line followed by its `- ` items, is read a case at a time: Read reads
// all but the cases, and All each case as it is asked for, so go-yaml's
// tree, some 200 bytes a value, is one case's at once, not the file's,
// the tree budget (yamlcost) applies to each case, and a run holds one
// case (some 1.3 KB of init's first shape), not the file's. A file is all
// or nothing: at a case that does not read cleanly on its own, or a name
// given twice, All reads the file whole by Parse and gives its answer, the
// rest of its cases or its first error (a file too dense to read whole,
// from that case on: allWhole). Any other file is read whole by Parse
// here.
func Read(name string, src []byte) (*File, error) { return (*Refs)(nil).Read(name, src) }

// Read is testcase.Read reading the files cases name through r.
func (r *Refs) Read(name string, src []byte) (*File, error) {
	if e := secondDocument(name, src); e != nil {
		return nil, e
	}
	if f := readHead(name, src, r); f != nil {
		return f, nil
	}
	f, err := r.Parse(name, src)
	if err != nil {
		return nil, err
	}
	f.dropTree()
	return f, nil
}

// errWhole makes a case that does not read on its own leave the file to
// Parse.
var errWhole = errors.New("read the file whole")

// readHead reads a case file in block style but for its cases, which All
// reads, or returns nil for Parse to read it whole.
func readHead(name string, src []byte, refs *Refs) *File {
	if len(src) > MaxFile {
		return nil
	}
	head, items, ok := splitCases(src)
	if !ok || yamlcost.Check(head) != nil {
		return nil
	}
	p := &parser{name: name, dir: filepath.Dir(name), refs: refs}
	doc, err := p.readYAML(head)
	if err != nil || len(doc.Content) == 0 {
		return nil
	}
	f := &File{Name: name, Src: src, items: items, p: p}
	root := doc.Content[0]
	err = p.fields(root, map[string]func(*yaml.Node) error{
		"pdl":      func(n *yaml.Node) error { f.PDLAt = p.place(n); return p.str(n, &f.PDL) },
		"language": func(n *yaml.Node) error { f.LanguageAt = p.place(n); return p.str(n, &f.Language) },
		"cases": func(n *yaml.Node) error {
			if n.Kind != yaml.ScalarNode || n.Tag != "!!null" {
				return errWhole
			}
			return nil
		},
	}, "cases")
	if err != nil || len(p.errs) > 0 || p.resolvePDL(f, root) != nil {
		return nil
	}
	return f
}

// All yields f's cases in order, each read as it is asked for when Read
// read f a case at a time; then, if f turns out not to read after all
// (at a case further on), its first error, after which the cases yielded
// before do not count: no case of a broken file runs.
func (f *File) All() iter.Seq2[*Case, *Error] {
	return func(yield func(*Case, *Error) bool) {
		if f.items == nil {
			for _, c := range f.Cases {
				if !yield(c, nil) {
					return
				}
			}
			return
		}
		// A name given twice is found by its hash, not the name kept: a
		// hash met again, a name twice or not, leaves the answer to Parse.
		// first holds the item each hash was first met at, and anchored the
		// first item that defines an anchor, which a later case may name.
		seed, first, anchored := maphash.MakeSeed(), map[uint64]int{}, -1
		for i, it := range f.items {
			c, anchor, err := f.p.oneCase(f.Src[it.start:it.end], it.line)
			var h uint64
			if err == nil {
				h = maphash.String(seed, c.Name)
			}
			if anchor && anchored < 0 {
				anchored = i
			}
			j, dup := first[h]
			if err != nil || dup {
				if !dup {
					j = -1
				}
				start := i
				if anchored >= 0 {
					start = anchored
				}
				f.allWhole(i, start, j, yield)
				return
			}
			first[h] = i
			if !yield(c, nil) {
				return
			}
		}
	}
}

// allWhole yields what Parse reads of f from its case i on, or its error:
// the answer on a file whose case i does not read on its own. A file too
// dense to read whole (docs/test.md: block style holds as many cases as
// 1 MiB does) is read as a window of it instead (window), so that what
// Parse says of it, the file's first error and those after it, is at the
// file's places, within the budget of the window.
func (f *File) allWhole(i, start, dup int, yield func(*Case, *Error) bool) {
	src, dense := f.Src, yamlcost.Check(f.Src) != nil
	if dense {
		src = f.window(i, start, dup)
	}
	whole, err := f.p.refs.Parse(f.Name, src)
	if err == nil && dense {
		// The window reads: case i did not read alone for a reason the
		// cases left out hold, so the file is read whole after all,
		// and refused as too dense.
		whole, err = f.p.refs.Parse(f.Name, f.Src)
	}
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			e = &Error{File: f.Name, Line: f.items[i].line, Col: 1, Msg: err.Error()}
		}
		yield(nil, e)
		return
	}
	whole.dropTree()
	for _, c := range whole.Cases[i:] {
		if !yield(c, nil) {
			return
		}
	}
}

// window is f's text with the items of its cases list blanked (their
// lines kept) but those from start on, as many as the tree budget of the
// text allows and at least to item i (a binary search, each step one scan
// of at most MaxFile bytes), and item dup (-1 for none). Items before i
// read alone, so blanking them changes nothing Parse says of the rest
// but for a name given twice, whose first item is dup, and an anchor a
// later case names, which the first item defining one, start, and those
// after it hold.
func (f *File) window(i, start, dup int) []byte {
	build := func(to int) []byte {
		var b bytes.Buffer
		b.Grow(len(f.Src))
		at := 0
		for k, it := range f.items {
			if k == dup || k >= start && k < to {
				continue
			}
			b.Write(f.Src[at:it.start])
			b.Write(bytes.Repeat([]byte("\n"), bytes.Count(f.Src[it.start:it.end], []byte("\n"))))
			at = it.end
		}
		b.Write(f.Src[at:])
		return b.Bytes()
	}
	// The last count of items kept whose text is within the budget.
	lo, hi := i+1, len(f.items)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if yamlcost.Check(build(mid)) == nil {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return build(lo)
}

// oneCase reads the case of item, a `- ` item of the cases list alone,
// which starts at line of the file, and says whether it defines an
// anchor.
func (p *parser) oneCase(item []byte, line int) (*Case, bool, error) {
	if yamlcost.Check(item) != nil {
		return nil, false, errWhole
	}
	d, err := p.readYAML(item)
	if err != nil {
		return nil, false, errWhole
	}
	if len(d.Content) != 1 || d.Content[0].Kind != yaml.SequenceNode || len(d.Content[0].Content) != 1 {
		return nil, false, errWhole
	}
	n := d.Content[0].Content[0]
	anchor := shiftLines(n, line-1)
	p.setSrc(item, line-1)
	c, err := p.testCase(n)
	if err != nil || len(p.errs) > 0 {
		// Parse reads the file whole, to name every error of it.
		return nil, anchor, errWhole
	}
	c.node, c.Expect.node = nil, nil
	return c, anchor, nil
}

// shiftLines moves the lines of n and what it holds down by k, from its
// own text's to the file's, and says whether any of them has an anchor.
// An alias's target is held elsewhere in the tree and moved there.
func shiftLines(n *yaml.Node, k int) bool {
	n.Line += k
	anchor := n.Anchor != ""
	for _, c := range n.Content {
		anchor = shiftLines(c, k) || anchor
	}
	return anchor
}

// span is one item of the cases list: its bytes and its first line.
type span struct{ start, end, line int }

// splitCases finds the top-level `cases:` list of a case file in block
// style and returns the file with the list's items blanked (their lines
// kept, empty, so the rest keeps its lines) and the items. ok is false
// for anything it is not sure of, which Parse then reads whole: no
// `cases:` line of its own or more than one, items written inline, tabs,
// carriage returns, document markers, a byte order mark.
func splitCases(src []byte) (head []byte, items []span, ok bool) {
	if bytes.ContainsAny(src, "\t\r") || bytes.HasPrefix(src, []byte("\xef\xbb\xbf")) {
		return nil, nil, false
	}
	type lineAt struct{ start, end int }
	var lines []lineAt
	for i := 0; i < len(src); {
		j := bytes.IndexByte(src[i:], '\n')
		if j < 0 {
			j = len(src) - i
		} else {
			j++
		}
		lines = append(lines, lineAt{i, i + j})
		i += j
	}
	text := func(l lineAt) []byte { return bytes.TrimRight(src[l.start:l.end], "\n") }
	indent := func(b []byte) int { return len(b) - len(bytes.TrimLeft(b, " ")) }
	blank := func(b []byte) bool {
		t := bytes.TrimLeft(b, " ")
		return len(t) == 0 || t[0] == '#'
	}
	at := -1
	for i, l := range lines {
		t := text(l)
		if bytes.HasPrefix(t, []byte("---")) || bytes.HasPrefix(t, []byte("...")) {
			return nil, nil, false
		}
		if bytes.HasPrefix(t, []byte("cases:")) {
			rest := bytes.TrimLeft(t[len("cases:"):], " ")
			if at >= 0 || len(rest) > 0 && rest[0] != '#' {
				return nil, nil, false
			}
			at = i
		}
	}
	if at < 0 {
		return nil, nil, false
	}
	k, first, last := -1, -1, len(lines)
	for i := at + 1; i < len(lines); i++ {
		t := text(lines[i])
		if blank(t) {
			continue
		}
		ind := indent(t)
		dash := ind < len(t) && t[ind] == '-' && (ind+1 == len(t) || t[ind+1] == ' ')
		if k < 0 {
			if !dash {
				return nil, nil, false
			}
			k, first = ind, i
		}
		if ind > k {
			continue
		}
		if ind == k && dash {
			if len(items) > 0 {
				items[len(items)-1].end = lines[i].start
			}
			items = append(items, span{start: lines[i].start, line: i + 1})
			continue
		}
		if ind == k && k > 0 {
			return nil, nil, false
		}
		last = i
		break
	}
	if len(items) == 0 {
		return nil, nil, false
	}
	// The last item ends at the line that ends the list; blank and comment
	// lines before that line belong to it, which changes nothing read.
	end := len(src)
	if last < len(lines) {
		end = lines[last].start
	}
	items[len(items)-1].end = end
	head = make([]byte, 0, len(src)-(end-lines[first].start)+last-first)
	head = append(head, src[:lines[first].start]...)
	head = append(head, bytes.Repeat([]byte("\n"), last-first)...)
	head = append(head, src[end:]...)
	return head, items, true
}

// secondDocument is an error at the --- (or ...) that ends a case file's
// first YAML document when a value follows it, or nil. go-yaml reads the
// first document alone, so the cases after the marker would never run,
// and --update, which writes the file back from what it read, would
// drop them. A marker before any value, or with only comments after it,
// leaves nothing unread. A document marker is at column 1 by YAML's
// rules, so a line of a block scalar or a quoted string never is one.
func secondDocument(name string, src []byte) *Error {
	valueSeen, marker := false, 0
	for line, rest := 1, src; len(rest) > 0; line++ {
		var l []byte
		l, rest, _ = bytes.Cut(rest, []byte("\n"))
		t := bytes.TrimRight(l, " \t\r")
		if isDocumentMarker(t) {
			if valueSeen && marker == 0 {
				marker = line
			}
			continue
		}
		if v := bytes.TrimLeft(t, " \t"); len(v) == 0 || v[0] == '#' {
			continue
		}
		if marker > 0 {
			return &Error{File: name, Line: marker, Col: 1, Msg: "a second YAML document begins here; a case file is one document, and its cases after this line would never run",
				Hint: "remove the line so the cases join the first document's cases: list, or move them to a file of their own (every file in tests/ is run)"}
		}
		valueSeen = true
	}
	return nil
}

// isDocumentMarker reports whether a line, its trailing spaces trimmed,
// starts or ends a YAML document (---, ..., or either followed by a
// space and more).
func isDocumentMarker(l []byte) bool {
	for _, m := range []string{"---", "..."} {
		if bytes.HasPrefix(l, []byte(m)) && (len(l) == 3 || l[3] == ' ' || l[3] == '\t') {
			return true
		}
	}
	return false
}
