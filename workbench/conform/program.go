package conform

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strconv"
	"strings"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/syntax"
	"github.com/pilotage-dev/pilotage/replay"
)

// program runs the loop with the user's program: validate → plan, and with
// Execute, execute and the fetch door, then every replay rule on the
// traces against the plan (§5.8.4), with the Language read from the
// snapshot the server published.
func (c *checker) program(man *pilotage.Manifest, l pilotage.LanguageEntry, snapPath string, snapSrc []byte) error {
	// A text-valued program travels as a string (binding.md).
	prog, text := syntax.Wire(l.Locator, c.opt.Program.Src)
	if !text {
		// As validate reports it: a byte order mark or UTF-16 names its
		// fix (internal/base/textenc).
		if pe := c.opt.Program.CheckJSON(l.ID); pe != nil {
			return pe
		}
	}
	if c.opt.Execute && l.Loop.Execute == "" {
		return fmt.Errorf("--execute: Language %s declares no execute operation", report.Clip(l.ID))
	}
	if c.opt.Report != nil && !man.EffectiveCapabilities(&l).Has(pilotage.CapPlan) {
		// Said before execute, which may act: the Run is what --report
		// draws, over the plan.
		return fmt.Errorf("--report: %s; nothing was executed", NoPlan(l.ID))
	}
	v := c.call(l.Loop.Validate, map[string]any{"program": prog})
	if kind, msg, _ := requestError(v); kind == pilotage.ErrResourceLimit {
		// The server holds the program to a bound of §10.1 (the
		// Language's limits, an expression past expr.MaxSize code
		// points): a correct answer, about the program, which conform
		// cannot check before it knows the Language's grammar and
		// limits.
		c.find(RuleProgramValid, v.op, "/structuredContent/error", "%s is past a bound of %s, which validate refuses with resource_limit (§10.1): %s; the loop checks need a program within the Language's bounds", c.opt.Program.File, report.Clip(l.ID), report.Clip(msg))
		return nil
	}
	if !c.expect(v, "validate "+c.opt.Program.File) {
		return nil
	}
	planPath, planSrc, err := c.saveAnswer("plan.json", v.raw)
	if err != nil {
		return err
	}
	var valid struct {
		Valid       bool            `json:"valid"`
		Diagnostics json.RawMessage `json:"diagnostics"`
	}
	if json.Unmarshal(v.raw, &valid) != nil || !valid.Valid {
		c.find(RuleProgramValid, v.op, "/structuredContent/valid", "%s does not validate in %s: %s", c.opt.Program.File, report.Clip(l.ID), compact(valid.Diagnostics))
		return nil
	}
	// Without plan declared, validate returns no plan (§5.6) and the Run
	// is checked without one: the result channels and the fetch door, not
	// the plan–trace correspondence.
	var plan *replay.Plan
	if man.EffectiveCapabilities(&l).Has(pilotage.CapPlan) {
		if plan, err = replay.LoadPlan(planPath, planSrc, 0); err != nil {
			c.find(RuleOperationAnswers, v.op, "/structuredContent/plan", "validate returned no plan replay can use: %v", err)
			return nil
		}
		c.planIDsStable(l.Loop.Validate, prog, v)
	}
	u, haveU := withUnknownName(l, c.opt.Program.Src, catalogIDs(snapSrc, l.ID))
	if haveU {
		c.validateUnknownName(l, u)
	} else {
		c.status("%s names no catalog entry of %s; no unknown_name probe", c.opt.Program.File, report.Clip(l.ID))
	}
	if !c.opt.Execute {
		c.status("validated %s; not executed (execute may have side effects: give --execute)", c.opt.Program.File)
		return nil
	}
	eff := man.EffectiveCapabilities(&l)
	args := map[string]any{"program": prog}
	if c.opt.Program.Input != nil {
		args["input"] = c.opt.Program.Input
	}
	if l.ExecutionMode == pilotage.ModeBoth {
		args["mode"] = pilotage.ModeImmediate
	}
	if c.opt.Deep != nil {
		// Deep replay re-decides from the outputs only a full trace
		// records (§5.8.1); the server lowers it to its ceiling.
		args["trace_level"] = pilotage.LevelFull
	}
	// The refusals first, with the arguments of the Run below: on a
	// conformant server they run nothing, so the Run is the only one.
	c.executeRefusals(man, l, args, u, haveU)
	fetch := l.Loop.Trace != "" && eff.Has(pilotage.CapTraceFetch)
	if fetch {
		// store: true keeps the Run for the fetch door (§6.5).
		args["store"] = true
	}
	e := c.call(l.Loop.Execute, args)
	if !c.expect(e, "execute "+c.opt.Program.File) {
		return nil
	}
	runPath, runSrc, err := c.saveAnswer("run.json", e.raw)
	if err != nil {
		return err
	}
	c.status("executed %s: %s", c.opt.Program.File, runPath)
	traces := map[string][]byte{runPath: runSrc}
	order := []string{runPath}
	if fetch {
		if path, src := c.fetch(l, e); path != "" {
			traces[path] = src
			order = append(order, path)
		}
	}
	if plan == nil {
		c.status("%s declares no plan: the Run is not replayed against one", report.Clip(l.ID))
		return nil
	}
	lang, err := replay.LoadSnapshot(snapPath, snapSrc, l.ID)
	if err != nil {
		// lint has reported what the snapshot lacks; replay still checks
		// everything that does not need the closed sets.
		c.status("replaying without the Language's closed sets: %v", err)
		lang = nil
	}
	var inputs []replay.Input
	for _, name := range order {
		src := traces[name]
		inputs = append(inputs, replay.Input{File: name, Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(src)), nil }})
	}
	ropt := replay.Options{Language: lang, Disabled: disabledOf(c.opt.Disabled, replayRules()), MaxPerRule: c.maxPerRule(), Deep: c.opt.Deep}
	if c.opt.Report != nil {
		c.opt.Report.Watch(plan, &ropt)
	}
	rep, err := replay.Run(plan, inputs, ropt)
	if err != nil {
		return err
	}
	c.merge(rep)
	if c.opt.Report == nil {
		return nil
	}
	name, err := c.opt.Report.Write(rep)
	if err != nil {
		// The findings are all there: Check returns them with this.
		c.unwritten = &ReportError{fmt.Errorf("--report: %v", err)}
		return nil
	}
	c.status("replay report of the Run: %s", name)
	return nil
}

// NoPlan is why the Run of a Language id without plan cannot be drawn
// (--report); the CLI says it too, when a --lang tells it before conform
// starts the server.
func NoPlan(id string) string {
	return fmt.Sprintf("Language %s declares no plan, so there is no plan to draw the Run over", report.Clip(id))
}

// ReportError is a --report (Options.Report) that could not be written
// once everything was checked: Check returns it with the report.
type ReportError struct{ Err error }

func (e *ReportError) Error() string { return e.Err.Error() }
func (e *ReportError) Unwrap() error { return e.Err }

// runFacts is what conform compares between the Run execute returned
// and the one the fetch door returns.
type runFacts struct {
	RunID   string          `json:"run_id"`
	Outcome json.RawMessage `json:"outcome"`
	Trace   json.RawMessage `json:"trace"`
}

// status is the outcome's status, "" when it has none.
func (r *runFacts) status() string {
	var o struct {
		Status string `json:"status"`
	}
	_ = json.Unmarshal(r.Outcome, &o)
	return o.Status
}

// level is the trace's level, "" when there is no trace.
func (r *runFacts) level() string {
	var t struct {
		Level string `json:"level"`
	}
	_ = json.Unmarshal(r.Trace, &t)
	return t.Level
}

// pointerEscaper escapes a member name as a JSON Pointer token (RFC 6901);
// built once, as a Replacer builds its tables on first use.
var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// firstDifference compares two decoded JSON values and returns the JSON
// Pointer of the first place they differ (members in sorted order), with
// false; "" and true when they are equal.
func firstDifference(a, b any, at string) (string, bool) {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return at, false
		}
		keys := make([]string, 0, len(x)+len(y))
		for k := range x {
			keys = append(keys, k)
		}
		for k := range y {
			if _, dup := x[k]; !dup {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			xv, inX := x[k]
			yv, inY := y[k]
			p := at + "/" + pointerEscaper.Replace(k)
			if inX != inY {
				return p, false
			}
			if d, ok := firstDifference(xv, yv, p); !ok {
				return d, false
			}
		}
		return "", true
	case []any:
		y, ok := b.([]any)
		if !ok {
			return at, false
		}
		for i := range min(len(x), len(y)) {
			if d, ok := firstDifference(x[i], y[i], at+"/"+strconv.Itoa(i)); !ok {
				return d, false
			}
		}
		if len(x) != len(y) {
			return at + "/" + strconv.Itoa(min(len(x), len(y))), false
		}
		return "", true
	}
	if reflect.DeepEqual(a, b) {
		return "", true
	}
	return at, false
}

// orRoot names an empty pointer for messages.
func orRoot(at string) string {
	if at == "" {
		return "its root"
	}
	return at
}

// levelRank orders the trace levels a trace can state (§5.8.1); 0 for
// anything else, which replay reports.
var levelRank = map[string]int{pilotage.LevelSummary: 1, pilotage.LevelFull: 2}

// saveAnswer saves an answer's JSON, indented so findings have lines.
func (c *checker) saveAnswer(name string, raw json.RawMessage) (string, []byte, error) {
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return "", nil, err
	}
	b.WriteByte('\n')
	path, err := c.save(name, b.Bytes())
	return path, b.Bytes(), err
}

// pickLanguage finds the index of the Language a program runs in: the
// one named, or the manifest's only one.
func pickLanguage(man *pilotage.Manifest, id string) (int, error) {
	if len(man.Languages) == 0 {
		return 0, fmt.Errorf("the server lists no Languages (its manifest's languages is empty), so there is none to run the program in")
	}
	var ids []string
	for i, l := range man.Languages {
		if l.ID == id || (id == "" && len(man.Languages) == 1) {
			return i, nil
		}
		ids = append(ids, l.ID)
	}
	if id == "" {
		return 0, fmt.Errorf("the server has %d Languages (%s); choose one with --language", len(ids), someOf(ids))
	}
	return 0, fmt.Errorf("--language %q: the server has no such Language (it has %s)", report.Clip(id), someOf(ids))
}

// someOf lists ids for a message, the first ten of a longer list and a
// count of the rest: a server may list thousands of Languages.
func someOf(ids []string) string {
	const shown = 10
	if len(ids) <= shown {
		return strings.Join(ids, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(ids[:shown], ", "), len(ids)-shown)
}
