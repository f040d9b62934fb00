package testcase

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Update rewrites the expectations of c that failed to what got shows,
// keeping their order, layout and every comment; a case stating none gets
// the ones that describe its result (valid and diagnostics, or status and
// output). A case whose program does not validate loses the plan and
// Run expectations that failed, which it has not, and gets valid and
// diagnostics. An answer nested deeper than a case may state, or one
// the engine did not give, is left as it was, a Refusal: the next run
// would refuse the file, or fail the case. So is a case whose program's
// mistake is a string YAML took the quotes of (Check's "program"
// failure): the program is to mend, not its mistake to record. So is an
// expectation holding a YAML anchor the rewrite would change or remove:
// its aliases elsewhere would name the new value, or nothing. A trace or
// the diagnostics are edited only where they do not hold (rewriteList).
func Update(c *Case, got *Got, failed []Failure) (refused []Refusal, err error) {
	if c.node == nil {
		return nil, errDropped
	}
	redo := map[string]bool{}
	for _, f := range failed {
		if f.Key == "program" {
			// The program is what is wrong (quotedCause): recording
			// that it does not validate would make its mistake the
			// case's expectation.
			refused = append(refused, Refusal{f.Key, fmt.Sprintf("case %q: %s; mend the program", c.Name, f.Msg)})
			continue
		}
		redo[f.Key] = true
	}
	if len(redo) == 0 {
		return refused, nil
	}
	e := &c.Expect
	for _, n := range []*yaml.Node{c.node, e.node} {
		if n != nil && n.Anchor != "" {
			// An alias elsewhere may name this case's expectations: a
			// rewrite would be its too.
			for _, k := range slices.Sorted(maps.Keys(redo)) {
				refused = append(refused, anchored(c.Name, k, n))
			}
			return refused, nil
		}
	}
	if e.node == nil {
		e.node = &yaml.Node{Kind: yaml.MappingNode}
		c.node.Content = append(c.node.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "expect"}, e.node)
		e.Lines = map[string]int{}
	}
	if e.node.Kind != yaml.MappingNode {
		// `expect:` given blank (or ~): the keys go in its place, and
		// its comments stay.
		e.node.Kind, e.node.Tag, e.node.Value, e.node.Style = yaml.MappingNode, "", "", 0
		if i := slices.Index(c.node.Content, e.node); i > 0 {
			keyComment(c.node.Content[i-1], e.node)
		}
	}
	if len(e.node.Content) == 0 {
		keys := []string{"valid", "diagnostics"}
		if out, _ := current("output", got); got.Execute != nil && out == nil {
			keys = []string{"status"} // a null output is no output a case can state
		} else if got.Execute != nil {
			keys = []string{"status", "output"}
		}
		for _, k := range keys {
			e.node.Content = append(e.node.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: k}, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"})
			redo[k] = true
		}
	}
	if got.Execute == nil && !got.Validate.Valid && dropPlanRunKeys(e.node, redo) {
		// The program does not validate, so the case has no plan and did
		// not run: a plan, or a Run's status, output, trace or narration,
		// is not there to write (a plan written as {} would hold of none),
		// and left as they were they fail the next run. What the case
		// does is not validate, which valid: false and the diagnostics
		// record.
		redo["valid"], redo["diagnostics"] = true, true
	}
	for _, k := range expectKeys {
		// A key that failed unstated (valid, of a program that does not
		// validate) is added to be written, in the order docs/test.md
		// lists the keys.
		if _, ok := current(k, got); ok && redo[k] && !hasKey(e.node, k) {
			e.node.Content = append(e.node.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: k}, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"})
		}
	}
	for i := 0; i+1 < len(e.node.Content); i += 2 {
		key := e.node.Content[i].Value
		if !redo[key] {
			continue
		}
		v, ok := current(key, got)
		if !ok {
			// Nothing to write (a narration the trace fetch did not
			// give): the expectation still fails, and must not be
			// reported as updated.
			refused = append(refused, Refusal{key, fmt.Sprintf("case %q: the engine gave no %s to write; left as it was", c.Name, key)})
			continue
		}
		if key == "output" && v == nil {
			// `output: null` is a blank output, which states nothing:
			// written, it would fail the next run.
			refused = append(refused, Refusal{key, fmt.Sprintf("case %q: the output is null, which a case cannot state (`output: null` is blank, as `output:` is); left as it was", c.Name)})
			continue
		}
		if deeper(v, maxDepth) {
			refused = append(refused, Refusal{key, fmt.Sprintf("case %q: %s is nested more than %d deep, deeper than a case file may state; left as it was", c.Name, key, maxDepth)})
			continue
		}
		old := e.node.Content[i+1]
		if key == "trace" || key == "diagnostics" {
			var a *yaml.Node
			var err error
			if key == "trace" {
				a, err = rewriteList(e.node.Content[i], old, e.Trace, v.([]TraceWant), traceKind)
			} else {
				a, err = rewriteList(e.node.Content[i], old, e.Diagnostics, v.([]DiagWant), diagKind)
			}
			if err != nil {
				return refused, err
			}
			if a != nil {
				refused = append(refused, anchored(c.Name, key, a))
			}
			continue
		}
		if a := anchorIn(old); a != nil {
			refused = append(refused, anchored(c.Name, key, a))
			continue
		}
		if plan := got.Validate.Plan; key == "plan" && plan != nil && old.Kind == yaml.MappingNode && len(old.Content) > 0 {
			// A plan states only the members it gives (a blank one
			// included): those are rewritten, and none is added.
			if err := rewriteMembers(old, planMembers(PlanOf(plan))); err != nil {
				return refused, err
			}
			continue
		}
		if err := rewrite(e.node.Content[i], old, v); err != nil {
			return refused, err
		}
	}
	return refused, nil
}

// anchored is the Refusal of key, which is in or holds the anchor of a:
// a rewrite would change or drop the value the anchor's aliases name.
func anchored(name, key string, a *yaml.Node) Refusal {
	return Refusal{key, fmt.Sprintf("case %q: %s is in or holds the YAML anchor &%s (line %d), whose aliases a rewrite would change or leave naming nothing; left as it was (write the value out in place of the anchor and its aliases)", name, key, a.Anchor, a.Line)}
}

// rewriteList makes old, the list expectation under key k that states
// the entries stated (a trace's, or the diagnostics), hold of got's
// entries with the smallest edit in the case's own terms (docs/test.md,
// "--update"). Entries are matched from each end of the list (kind's
// same: a trace's by id, a diagnostic by code and the path it states),
// and those between paired in order: a paired entry keeps its node, and
// so its members' order and comments, and only the members it states
// that do not hold are rewritten (one the answer lacks, such as a took
// the step no longer takes, is removed), none added; an entry of an
// answer the case does not state is added with the members the case's
// entries state; one no longer answered is removed, its comments with
// it. A list given blank or as [] states no member, so it is written
// whole. When a node the rewrite would change or remove carries an
// anchor (or lies under one), nothing is changed and that node is
// returned.
func rewriteList[T any](k, old *yaml.Node, stated, got []T, kind *entryKind[T]) (*yaml.Node, error) {
	if old.Kind != yaml.SequenceNode || len(old.Content) == 0 || len(old.Content) != len(stated) {
		if a := anchorIn(old); a != nil {
			return a, nil
		}
		return nil, rewrite(k, old, got)
	}
	head := 0
	for head < min(len(stated), len(got)) && kind.same(stated[head], got[head]) {
		head++
	}
	tail := 0
	for tail < min(len(stated), len(got))-head && kind.same(stated[len(stated)-1-tail], got[len(got)-1-tail]) {
		tail++
	}
	// pair[i] is the stated entry got[i] is paired with, -1 for none.
	pair := make([]int, len(got))
	kept := make([]bool, len(stated))
	for i := range got {
		switch {
		case i >= len(got)-tail:
			pair[i] = i - len(got) + len(stated)
		case i >= len(stated)-tail:
			pair[i] = -1
		default:
			pair[i] = i
		}
		if pair[i] >= 0 {
			kept[pair[i]] = true
		}
	}
	// What changes, checked for anchors before anything is.
	edits := make([][]memberEdit, len(got))
	changed := false
	for i, j := range pair {
		if j < 0 {
			changed = true
			continue
		}
		n := old.Content[j]
		edits[i] = entryEdits(n, stated[j], got[i], kind)
		if len(edits[i]) == 0 {
			continue
		}
		changed = true
		if n.Anchor != "" {
			return n, nil
		}
		for _, e := range edits[i] {
			if e.at < 0 {
				// Written out in its place: an alias's anchor is left
				// as it is, but a mapping's own members go.
				if a := anchorIn(n); n.Kind != yaml.AliasNode && a != nil {
					return a, nil
				}
				continue
			}
			if e.add != "" {
				continue // a member added, none changed
			}
			if a := cmp.Or(anchorIn(n.Content[e.at]), anchorIn(n.Content[e.at+1])); a != nil {
				return a, nil
			}
		}
	}
	for j, n := range old.Content {
		if !kept[j] {
			changed = true
			if a := anchorIn(n); a != nil {
				return a, nil
			}
		}
	}
	if changed && old.Anchor != "" {
		return old, nil
	}
	members := statedMembers(old.Content, kind.members)
	flow := slices.ContainsFunc(old.Content, func(n *yaml.Node) bool { return n.Style&yaml.FlowStyle != 0 })
	entries := make([]*yaml.Node, 0, len(got))
	for i, j := range pair {
		var n *yaml.Node
		var err error
		renamed := j >= 0 && names(old.Content[j], stated[j], got[i], kind)
		switch {
		case j < 0:
			n = newEntry(got[i], members, flow, kind)
		case len(edits[i]) == 1 && edits[i][0].at < 0:
			n = writtenOut(old.Content[j], got[i], kind)
		default:
			n, err = old.Content[j], applyEdits(old.Content[j], edits[i])
		}
		if err != nil {
			return nil, err
		}
		if renamed {
			// The stated entry named what the answer no longer has: it
			// is removed, and its comments with it, the answer's entry
			// taking its node.
			uncomment(n)
		}
		entries = append(entries, n)
	}
	old.Content = entries
	return nil, nil
}

// entryKind is what rewriteList needs to know of a list's entries.
type entryKind[T any] struct {
	// members are an entry's members, in the order a new one is
	// written; the first is always written.
	members []string
	// required: an entry must state the first member to hold, and
	// one lacking it is written out whole.
	required bool
	// same reports whether the stated s names g, to pair them.
	same func(s, g T) bool
	// shown is g as s states it: s holds of g when the two are equal.
	shown func(s, g T) T
	// member is the value g gives the member key, and whether s's
	// holds of it; a want of "" is a member g does not give.
	member func(key string, s, g T) (want any, holds bool)
}

// traceKind is a trace entry's: matched by id (an entry stating none
// matches any step), its calls stated empty for a step that called
// none.
var traceKind = &entryKind[TraceWant]{
	members: []string{"id", "status", "calls", "took"},
	same:    func(s, g TraceWant) bool { return s.ID == "" || s.ID == g.ID },
	shown:   traceShown,
	member: func(key string, s, g TraceWant) (any, bool) {
		switch key {
		case "id":
			return g.ID, s.ID == g.ID
		case "status":
			return g.Status, s.Status == g.Status
		case "calls":
			return stated(g.Calls), len(s.Calls)+len(g.Calls) == 0 || slices.Equal(s.Calls, g.Calls)
		case "took":
			return g.Took, s.Took == g.Took
		}
		return nil, true
	},
}

// diagKind is a diagnostic's: matched by code, and by path when it
// states one; a stated message holds while it is a substring of the
// engine's, and one that no longer is becomes the engine's whole.
var diagKind = &entryKind[DiagWant]{
	members:  []string{"code", "path", "message"},
	required: true,
	same:     func(s, g DiagWant) bool { return s.Code == g.Code && (s.Path == "" || s.Path == g.Path) },
	shown:    diagShown,
	member: func(key string, s, g DiagWant) (any, bool) {
		var have, want string
		switch key {
		case "code":
			have, want = s.Code, g.Code
		case "path":
			have, want = s.Path, g.Path
		case "message":
			// A blank message is filled, as a blank member is.
			have, want = s.Message, g.Message
			return want, have == want || have != "" && strings.Contains(want, have)
		default:
			return nil, true
		}
		return want, have == want
	},
}

// statedMembers are the members the entries state, in members' order,
// the first always.
func statedMembers(entries []*yaml.Node, members []string) []string {
	seen := map[string]bool{members[0]: true}
	for _, n := range entries {
		if n.Kind == yaml.AliasNode && n.Alias != nil {
			n = n.Alias
		}
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				seen[n.Content[i].Value] = true
			}
		}
	}
	return slices.DeleteFunc(slices.Clone(members), func(m string) bool { return !seen[m] })
}

// newEntry is a new entry for g stating members, in flow style when
// flow, and leaving out a member g does not give (a blank took states
// nothing): a trace's calls are stated empty when the step called none.
// It is built as nodes, not encoded: a Run's trace may hold 100,000
// steps, and an Encode each took 15 µs.
func newEntry[T any](g T, members []string, flow bool, kind *entryKind[T]) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	if flow {
		n.Style = yaml.FlowStyle
	}
	str := func(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v} }
	var zero T
	for i, m := range members {
		var v *yaml.Node
		switch want, _ := kind.member(m, zero, g); want := want.(type) {
		case string:
			if want == "" && i > 0 {
				continue
			}
			v = str(want)
		case CallList:
			v = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
			for _, c := range want {
				v.Content = append(v.Content, str(c))
			}
		default:
			continue
		}
		n.Content = append(n.Content, str(m), v)
	}
	return n
}

// stated is calls as a case states them: `calls: []` for none.
func stated(calls CallList) CallList {
	if calls == nil {
		return CallList{}
	}
	return calls
}

// memberEdit is a change to the member of an entry whose key is at
// Content[at]: its value becomes want, or, with drop, it is removed;
// with add, the member of that key is added first, of value want.
type memberEdit struct {
	at   int
	want any
	drop bool
	add  string
}

// entryEdits are the changes that make the stated entry n, which
// states s, hold of g: each member it states that differs is rewritten,
// and one g does not give is removed (stated, it would fail); the
// member kind requires is added when the entry lacks it. An entry given
// as an alias that does not hold has one edit, at -1: it is written out
// in its place (writtenOut).
func entryEdits[T any](n *yaml.Node, s, g T, kind *entryKind[T]) []memberEdit {
	if n.Kind == yaml.AliasNode {
		if reflect.DeepEqual(s, kind.shown(s, g)) {
			return nil
		}
		return []memberEdit{{at: -1}}
	}
	if n.Kind != yaml.MappingNode {
		return nil
	}
	var edits []memberEdit
	if r := kind.members[0]; kind.required && !hasKey(n, r) {
		if want, holds := kind.member(r, s, g); !holds {
			edits = append(edits, memberEdit{want: want, add: r})
		}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if want, holds := kind.member(n.Content[i].Value, s, g); !holds && want != nil {
			edits = append(edits, memberEdit{at: i, want: want, drop: want == ""})
		}
	}
	return edits
}

// applyEdits makes the edits to the entry n, in place: a rewritten
// value keeps its style and comments, a removed member's comments go
// with it, and an added member comes first.
func applyEdits(n *yaml.Node, edits []memberEdit) error {
	drop := map[int]bool{}
	var added []*yaml.Node
	for _, e := range edits {
		switch {
		case e.add != "":
			k, v := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: e.add}, &yaml.Node{}
			if err := rewrite(k, v, e.want); err != nil {
				return err
			}
			added = append(added, k, v)
		case e.drop:
			drop[e.at] = true
		default:
			if err := rewrite(n.Content[e.at], n.Content[e.at+1], e.want); err != nil {
				return err
			}
		}
	}
	kept := n.Content[:0]
	if added != nil {
		kept = added
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if !drop[i] {
			kept = append(kept, n.Content[i], n.Content[i+1])
		}
	}
	n.Content = kept
	return nil
}

// names reports whether the entry n, which states s, names something
// other than g: it states kind's first member (a step's id, a
// diagnostic's code), and g's differs.
func names[T any](n *yaml.Node, s, g T, kind *entryKind[T]) bool {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	_, holds := kind.member(kind.members[0], s, g)
	return !holds && hasKey(n, kind.members[0])
}

// uncomment removes the comments of the entry n and of the nodes under
// it, not following aliases, but for the lines above and below it (n's
// head and foot comments): those are often the list's (a heading over
// the entries that follow, a commented-out entry), not the entry's.
func uncomment(entry *yaml.Node) {
	head, foot := entry.HeadComment, entry.FootComment
	stack := []*yaml.Node{entry}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n.HeadComment, n.LineComment, n.FootComment = "", "", ""
		stack = append(stack, n.Content...)
	}
	entry.HeadComment, entry.FootComment = head, foot
}

// writtenOut writes out the entry n, for g, in n's place: with the
// members it (or, for an alias, its anchor's entry) states and the
// first of kind's, in its style, and n's comments; an alias's
// anchor is left as it is.
func writtenOut[T any](n *yaml.Node, g T, kind *entryKind[T]) *yaml.Node {
	like := n
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		like = n.Alias
	}
	e := newEntry(g, statedMembers([]*yaml.Node{n}, kind.members), like.Style&yaml.FlowStyle != 0, kind)
	e.HeadComment, e.LineComment, e.FootComment = n.HeadComment, n.LineComment, n.FootComment
	return e
}

// rewrite makes old, the value of key k in the case file, v, in old's
// style and with its comments.
func rewrite(k, old *yaml.Node, v any) error {
	var n yaml.Node
	if err := n.Encode(v); err != nil {
		return err
	}
	keepFlow(old, &n)
	n.HeadComment, n.LineComment, n.FootComment = old.HeadComment, old.LineComment, old.FootComment
	*old = n
	keyComment(k, old)
	return nil
}

// keyComment moves the comment written after a blank value (`output:
// # why`) to its key k when the value v becomes a block mapping or
// list: go-yaml writes such a value's own line comment before the next
// item of the file, where it would describe something else.
func keyComment(k, v *yaml.Node) {
	block := (v.Kind == yaml.MappingNode || v.Kind == yaml.SequenceNode) && v.Style&yaml.FlowStyle == 0
	if block && v.LineComment != "" && k.LineComment == "" {
		k.LineComment, v.LineComment = v.LineComment, ""
	}
}

// rewriteMembers rewrites each member of the mapping n that values
// holds to its value there.
func rewriteMembers(n *yaml.Node, values map[string]any) error {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if v, ok := values[n.Content[i].Value]; ok {
			if err := rewrite(n.Content[i], n.Content[i+1], v); err != nil {
				return err
			}
		}
	}
	return nil
}

// planMembers are w's members by the names a case gives them, each
// whether empty or not: a plan of no steps is `steps: []`.
func planMembers(w PlanWant) map[string]any {
	return map[string]any{"steps": w.Steps, "risks": w.Risks, "max_risk": w.MaxRisk}
}

// dropPlanRunKeys removes from the mapping n the plan and Run
// expectations that failed (in redo), and reports whether it removed any.
func dropPlanRunKeys(n *yaml.Node, redo map[string]bool) bool {
	kept := n.Content[:0]
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i].Value; !redo[k] || k != "plan" && !slices.Contains(runKeys, k) {
			kept = append(kept, n.Content[i], n.Content[i+1])
		}
	}
	dropped := len(kept) < len(n.Content)
	n.Content = kept
	return dropped
}

// hasKey reports whether the mapping n gives key.
func hasKey(n *yaml.Node, key string) bool {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return true
		}
	}
	return false
}

// anchorIn is the first node under n, n included, that carries an
// anchor, nil for none; it does not follow aliases, so it visits each
// node of the file once.
func anchorIn(n *yaml.Node) *yaml.Node {
	stack := []*yaml.Node{n}
	for len(stack) > 0 {
		n, stack = stack[len(stack)-1], stack[:len(stack)-1]
		if n.Anchor != "" {
			return n
		}
		for _, c := range slices.Backward(n.Content) {
			stack = append(stack, c)
		}
	}
	return nil
}

// deeper reports whether a value of v lies more than limit levels below
// it, as the parser counts (writeJSON), looking no deeper than that.
func deeper(v any, limit int) bool {
	if limit < 0 {
		return true
	}
	switch x := v.(type) {
	case []any:
		return slices.ContainsFunc(x, func(y any) bool { return deeper(y, limit-1) })
	case map[string]any:
		for _, y := range x {
			if deeper(y, limit-1) {
				return true
			}
		}
	}
	return false
}

// Refusal is an expectation Update left as it was, and why.
type Refusal struct {
	Key string // "output", …
	Msg string
}

var runID = regexp.MustCompile(`^Run run-\S+ `)

// current is the value got shows for an expectation key.
func current(key string, got *Got) (any, bool) {
	v, x := got.Validate, got.Execute
	switch key {
	case "valid":
		return v.Valid, true
	case "diagnostics":
		return Diagnostics(v.Diagnostics), true
	case "plan":
		// A program that does not validate has none: {} would hold of
		// that, and say nothing.
		return PlanOf(v.Plan), v.Plan != nil
	}
	if x == nil {
		return nil, false
	}
	switch key {
	case "status":
		return x.Outcome.Status, true
	case "output":
		var out any
		_ = json.Unmarshal(nullable(x.Output), &out)
		return out, true
	case "trace":
		return TraceOf(x.Trace), true
	case "narration":
		// A substring without the Run's id, which differs every run.
		return runID.ReplaceAllString(got.Narration, ""), got.Narration != ""
	}
	return nil, false
}

// Marshal writes the file back, comments and order kept.
func (f *File) Marshal() ([]byte, error) {
	if f.doc == nil {
		return nil, errDropped
	}
	liftFlowFeet(f.doc)
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(f.doc); err != nil {
		return nil, err
	}
	return b.Bytes(), enc.Close()
}

// liftFlowFeet moves the foot comment of each flow mapping under n (the
// comment on the lines after a flow entry of a list) where go-yaml
// writes it in place without a change to the entry: it writes a flow
// mapping's foot comment after a comma of its own, `{id: a,}`, an edit
// of an entry that may have held. The comment goes to the head of the
// next entry; under the last, after its line comment, which go-yaml
// writes to the end of the line and the comment's lines under it; and
// under a last entry with no line comment, before what follows the list.
// It returns the comments nothing under n follows, for what follows n.
func liftFlowFeet(n *yaml.Node) (rest string) {
	if n.Style&yaml.FlowStyle != 0 {
		return ""
	}
	for i, c := range n.Content {
		if rest != "" && (n.Kind != yaml.MappingNode || i%2 == 0) {
			c.HeadComment, rest = joinComments(rest, c.HeadComment), ""
		}
		rest = joinComments(rest, liftFlowFeet(c))
		if c.Kind != yaml.MappingNode || c.Style&yaml.FlowStyle == 0 || c.FootComment == "" {
			continue
		}
		if n.Kind == yaml.SequenceNode && i == len(n.Content)-1 && c.LineComment != "" {
			c.LineComment = joinComments(c.LineComment, c.FootComment)
		} else {
			rest = joinComments(rest, c.FootComment)
		}
		c.FootComment = ""
	}
	return rest
}

// joinComments is comment a, then comment b, either of which may be
// none.
func joinComments(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + "\n" + b
}

// errDropped is Update's and Marshal's answer on a file whose tree
// dropTree let go.
var errDropped = errors.New("the case file's YAML tree was dropped after reading; parse it again to rewrite it")

// dropTree lets go of the YAML tree the file was read from, which only
// Update and Marshal use: go-yaml's tree takes about 200 bytes a value,
// tens of times the file, and a run that rewrites nothing holds every
// file's cases to the end.
func (f *File) dropTree() {
	f.doc = nil
	for _, c := range f.Cases {
		c.node, c.Expect.node = nil, nil
	}
}

// keepFlow writes n in flow style where old was: the whole value, or
// each item of a block list of flow items.
func keepFlow(old, n *yaml.Node) {
	switch {
	case old.Style&yaml.FlowStyle != 0:
		n.Style |= yaml.FlowStyle
	case old.Kind == yaml.SequenceNode && len(old.Content) > 0 && old.Content[0].Style&yaml.FlowStyle != 0:
		for _, x := range n.Content {
			x.Style |= yaml.FlowStyle
		}
	}
}
