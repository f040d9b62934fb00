package testcase

import (
	"bytes"
	"errors"
	"path/filepath"

	"go.yaml.in/yaml/v3"

	"github.com/pilotage-dev/pilotage/internal/base/yamlcost"
)

// Read reads a case file as Parse does, into the same cases, but keeps no
// YAML tree, so its File cannot be rewritten (Update, Marshal: Parse is
// for --update). A file in block style, `cases:` at the start of a line
// followed by its `- ` items, is read a case at a time: go-yaml's tree,
// some 200 bytes a value, is one case's at once, not the file's, and the
// tree budget (yamlcost) applies to each case. Any other file, and any
// file one of whose cases does not read cleanly on its own, is read whole
// by Parse, whose answer, a file or the first error, is the one given.
func Read(name string, src []byte) (*File, error) {
	if f := readByCase(name, src); f != nil {
		return f, nil
	}
	f, err := Parse(name, src)
	if err != nil {
		return nil, err
	}
	f.dropTree()
	return f, nil
}

// errWhole makes readByCase leave the file to Parse.
var errWhole = errors.New("read the file whole")

// readByCase reads a case file in block style a case at a time, or
// returns nil for Parse to read it whole.
func readByCase(name string, src []byte) *File {
	if len(src) > MaxFile {
		return nil
	}
	head, items, ok := splitCases(src)
	if !ok || yamlcost.Check(head) != nil {
		return nil
	}
	var doc yaml.Node
	if yaml.Unmarshal(head, &doc) != nil || len(doc.Content) == 0 {
		return nil
	}
	p := &parser{name: name, dir: filepath.Dir(name)}
	f := &File{Name: name, Src: src}
	root := doc.Content[0]
	err := p.fields(root, map[string]func(*yaml.Node) error{
		"pdl":      func(n *yaml.Node) error { return p.str(n, &f.PDL) },
		"language": func(n *yaml.Node) error { return p.str(n, &f.Language) },
		"cases": func(n *yaml.Node) error {
			if n.Kind != yaml.ScalarNode || n.Tag != "!!null" {
				return errWhole
			}
			for _, it := range items {
				c, err := p.oneCase(src[it.start:it.end], it.line)
				if err != nil {
					return err
				}
				f.Cases = append(f.Cases, c)
			}
			return nil
		},
	}, "cases")
	if err != nil || p.finish(f, root) != nil {
		return nil
	}
	return f
}

// oneCase reads the case of item, a `- ` item of the cases list alone,
// which starts at line of the file.
func (p *parser) oneCase(item []byte, line int) (*Case, error) {
	if yamlcost.Check(item) != nil {
		return nil, errWhole
	}
	var d yaml.Node
	if err := yaml.Unmarshal(item, &d); err != nil {
		return nil, errWhole
	}
	if len(d.Content) != 1 || d.Content[0].Kind != yaml.SequenceNode || len(d.Content[0].Content) != 1 {
		return nil, errWhole
	}
	n := d.Content[0].Content[0]
	shiftLines(n, line-1)
	c, err := p.testCase(n)
	if err != nil {
		return nil, err
	}
	c.node, c.Expect.node = nil, nil
	return c, nil
}

// shiftLines moves the lines of n and what it holds down by k, from its
// own text's to the file's. An alias's target is held elsewhere in the
// tree and moved there.
func shiftLines(n *yaml.Node, k int) {
	n.Line += k
	for _, c := range n.Content {
		shiftLines(c, k)
	}
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
