package testcase

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"

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
// failure): the program is to mend, not its mistake to record.
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
		if got.Execute != nil {
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
		if deeper(v, maxDepth) {
			refused = append(refused, Refusal{key, fmt.Sprintf("case %q: %s is nested more than %d deep, deeper than a case file may state; left as it was", c.Name, key, maxDepth)})
			continue
		}
		old := e.node.Content[i+1]
		if plan := got.Validate.Plan; key == "plan" && plan != nil && old.Kind == yaml.MappingNode && len(old.Content) > 0 {
			// A plan states only the members it gives (a blank one
			// included): those are rewritten, and none is added.
			if err := rewriteMembers(old, planMembers(PlanOf(plan))); err != nil {
				return refused, err
			}
			continue
		}
		if key == "trace" {
			if err := rewriteTrace(e.node.Content[i], old, e.Trace, v.([]TraceWant)); err != nil {
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

// rewriteTrace makes old, the trace expectation under key k that states
// the entries stated, got's entries. An entry of the same step keeps
// its members' order and a stated `calls: []` the step still bears out
// (got's entry leaves out the calls of a step that called none, which
// the case did not state).
func rewriteTrace(k, old *yaml.Node, stated, got []TraceWant) error {
	for i := range min(len(stated), len(got)) {
		if s := stated[i]; s.ID == got[i].ID && s.Calls != nil && len(s.Calls)+len(got[i].Calls) == 0 {
			got[i].Calls = CallList{}
		}
	}
	was := old.Content
	if old.Kind != yaml.SequenceNode {
		was = nil
	}
	if err := rewrite(k, old, got); err != nil {
		return err
	}
	for i := range min(len(was), len(old.Content)) {
		memberOrder(was[i], old.Content[i])
	}
	return nil
}

// memberOrder orders the members of the mapping n as the mapping was
// states them, those was does not state after them in n's order.
func memberOrder(was, n *yaml.Node) {
	if was.Kind != yaml.MappingNode || n.Kind != yaml.MappingNode {
		return
	}
	at := func(key string) int {
		for i := 0; i+1 < len(was.Content); i += 2 {
			if was.Content[i].Value == key {
				return i
			}
		}
		return len(was.Content)
	}
	var pairs [][2]*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		pairs = append(pairs, [2]*yaml.Node{n.Content[i], n.Content[i+1]})
	}
	slices.SortStableFunc(pairs, func(a, b [2]*yaml.Node) int { return cmp.Compare(at(a[0].Value), at(b[0].Value)) })
	n.Content = n.Content[:0]
	for _, p := range pairs {
		n.Content = append(n.Content, p[0], p[1])
	}
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
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(f.doc); err != nil {
		return nil, err
	}
	return b.Bytes(), enc.Close()
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
