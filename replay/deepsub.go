package replay

import (
	"fmt"
	"strconv"
	"strings"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/expr"
	"github.com/pilotage-dev/pilotage/internal/model/program"
)

// sub re-decides the expanded entries (§5.8.3) of entry e, a step that
// runs promoted program s.Target, as the body the Language defines, with
// the body's input bound from e's recorded input (else from args, the
// arguments' values), and checks e's output against the body's. It
// reports whether the Run may go on after e as far as the body says: false
// when a step of the body failed, which ends the Run.
func (r *deepRun) sub(s *program.Step, sc *dscope, e *entry, args map[string]any) bool {
	prefix := *e.w.ID + "/"
	b := r.d.bodies[s.Target]
	switch {
	case !r.expanded(prefix):
		// A body that ran shows no entries of its own when the trace
		// is opaque; in an expanded trace, when the body completed and
		// has steps (one that stopped before its first step decided
		// nothing).
		ran := b != nil && len(e.w.Calls) > 0 && (r.d.Subprogram != pilotage.SubprogramExpanded || e.ok() && len(b.prog.Steps) > 0)
		if ran {
			r.note("the body of "+s.Target, r.opaque())
		}
		return true
	case b == nil:
		r.skip(prefix)
		r.note("entries of an expanded sub-program", "the Language (--lang) defines no body for "+s.Target+", which their step runs (§5.8.3)")
		return true
	case b.invalid != "":
		r.skip(prefix)
		r.note("entries of an expanded sub-program", "the body of "+s.Target+" the Language defines does not validate in it ("+b.invalid+")")
		return true
	case sc.fr.depth >= r.d.expansion:
		r.skip(prefix)
		r.note("entries of an expanded sub-program", fmt.Sprintf("they are nested deeper than the Language's expansion limit of %d", r.d.expansion))
		return true
	}
	fr := &dframe{input: r.subInput(s, e, args), src: b.src, body: b, depth: sc.fr.depth + 1}
	root := &dscope{outputs: map[string]any{}, root: r, fr: fr}
	before := r.reported
	went := r.sequence(b.prog.Steps, root, nil, prefix)
	if d := r.departed; d != nil {
		r.departed = nil
		switch {
		case (d.got == nil || !r.expanded(prefix)) && !e.ok():
			// The body stopped with the Run (a bound), and e says so.
		case r.reported > before:
			// A divergence reported above, such as an arm the trace
			// took against its condition, leads the entries elsewhere.
			r.skip(prefix)
			r.note("the rest of the expanded entries of "+*e.w.ID, "they depart from the body after a divergence reported in it")
		default:
			r.drift(s.Target, e, d, prefix)
		}
		return true
	}
	if !went {
		if r.failed != nil {
			return false
		}
		// A decision replay cannot follow (branch-decision reports it).
		r.skip(prefix)
		return true
	}
	out, known := last(b.prog.Steps, root), true
	if b.prog.Output != nil {
		out, known = r.eval(b.prog.Output, root, e, "the output of "+s.Target+", which "+*e.w.ID+" runs,")
	}
	if n := r.peek(); r.expanded(prefix) {
		r.drift(s.Target, e, &departure{fr: fr, got: n}, prefix)
		return true
	}
	if known && e.ok() && len(e.w.Output) > 0 {
		rel := place{src: b.src, note: "the body's last step"}
		if b.prog.Output != nil {
			rel = place{src: b.src, ptr: b.prog.Output.Pointer, note: "the body's output"}
		}
		r.compare(RuleDeepOutput, e, "/output", out, "the output of "+*e.w.ID,
			"a promoted program gives its body's output expression, or its last step's output without one (§5.8.3)", rel)
	}
	return true
}

// expanded reports whether the next entry is an expanded entry of the
// step whose id and / are prefix.
func (r *deepRun) expanded(prefix string) bool {
	n := r.peek()
	return n != nil && n.w.ID != nil && strings.HasPrefix(*n.w.ID, prefix)
}

// skip takes the expanded entries under prefix that are not re-decided.
func (r *deepRun) skip(prefix string) {
	for r.expanded(prefix) {
		r.take()
	}
}

// opaque says why a promoted program's body, which ran, shows as no
// entries of its own.
func (r *deepRun) opaque() string {
	if r.d.Subprogram != pilotage.SubprogramExpanded {
		return "the trace shows it as one opaque entry, since the Language's trace_subprogram is opaque (§5.8.3)"
	}
	return "the trace shows it as one opaque entry, as a server shows a body that names entries the caller may not see or that runs under the promoter's authority (§10.3)"
}

// subInput is the input a promoted body runs with: the object the entry
// that runs it records as its input (§5.8.3: the call's input is the
// sub-program's), else the arguments' values, else unknown: for the
// value an argument could not be evaluated for (r.missing, left by
// call), which is what every expression reading the body's input meets,
// as a loop's elements are unknown for its list's (a summary trace
// without --input: one finding for the Run's input, not one more for the
// body's); else for the trace not recording it.
func (r *deepRun) subInput(s *program.Step, e *entry, args map[string]any) any {
	if len(e.w.Input) > 0 {
		if v, err := expr.DecodeJSON(e.w.Input); err == nil && !truncated(v) {
			return v
		}
	}
	if args != nil && !containsUnknown(args) {
		return args
	}
	if args == nil && r.missing != nil {
		return *r.missing
	}
	return unknown{why: "the input of " + *e.w.ID + ", which runs " + s.Target + ", and which a summary trace does not record (§5.8.1)"}
}

// drift reports expanded entries of e that depart from the body of
// target the Language defines, and takes the rest of them: the server ran
// another body under the reference, which identifies one body (§5.4).
func (r *deepRun) drift(target string, e *entry, d *departure, prefix string) {
	at, met := e.site, "the trace has no entry there"
	if d.got != nil && d.got.w.ID != nil && strings.HasPrefix(*d.got.w.ID, prefix) {
		at, met = d.got.site, "the trace has "+strconv.Quote(*d.got.w.ID)
	}
	var msg string
	if d.want == "" {
		msg = fmt.Sprintf("the expanded entries of %s go on after the body of %s the Language defines has ended: %s", idOf(e), target, met)
	} else {
		msg = fmt.Sprintf("the expanded entries of %s depart from the body of %s the Language defines: it gives step %q next, %s", idOf(e), report.Clip(target), report.Clip(d.want), met)
	}
	r.report(RuleDeepDrift, at, msg,
		"a program_ref identifies one immutable body (§5.4): the server ran another body under it, or the Language given is not the one the Run ran in",
		d.fr.src.entryAt("the body the Language defines"))
	r.skip(prefix)
}
