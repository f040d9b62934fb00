package picture

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/inputs"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/replay"
)

// Timeline is one Run drawn on a time axis: every trace entry as a bar
// placed by the durations of the entries before it, indented by how
// deeply it is nested, with its status and decisions, then the Run's
// output and narration.
type Timeline struct {
	Title     string
	RunID     string
	Outcome   pilotage.Outcome
	Level     string
	Output    string
	Narration string
	// Diagnostics say why a refused Run ran nothing.
	Diagnostics []DiagnosticRow
	Rows        []TimeRow
	// More counts the entries past maxTimelineRows, not drawn.
	More    int
	TotalMs float64
	Timed   bool
	Ticks   []Tick
}

// TimeRow is one trace entry on the timeline.
type TimeRow struct {
	ID, Kind, Calls, Status string
	OK                      bool
	Depth                   int
	// Left and Width place the bar, in percent of the axis.
	Left, Width float64
	Time        string
	Decisions   string
	Output      string
	// Control marks an entry that spans others: a branch, a loop or an
	// expanded sub-program call.
	Control bool
}

// DiagnosticRow is one diagnostic of a refused Run.
type DiagnosticRow struct {
	Severity, Code, Path, Message, Hint string
}

// Tick is a label on the time axis.
type Tick struct {
	Left  float64
	Label string
}

// maxTimelineRows bounds the bars drawn; a longer trace is cut with a
// line saying how many entries follow.
const maxTimelineRows = 2000

// maxValueText bounds an output or narration shown in a timeline.
const maxValueText = 64 << 10

// RunRecord is what a timeline is drawn from: an execute response or a
// trace-fetch response (§6.5, §6.6), or a bare trace.
type RunRecord struct {
	RunID     string
	Outcome   pilotage.Outcome
	Output    json.RawMessage
	Trace     *pilotage.Trace
	Narration string
	// Diagnostics are a refused Run's (validation_error, §6.5.2).
	Diagnostics []pilotage.Diagnostic
	// More counts the trace's steps ReadRun read past without keeping.
	More int
}

// ReadRun reads a trace file as pilotage replay takes it: a trace
// object, an execute response or a trace-fetch response. It streams the
// steps and keeps the first maxTimelineRows, counting the rest in More,
// so a trace of millions of entries costs what the timeline draws.
// Every byte read also goes, through a pipe, to replay.CheckJSON, which
// reads the file to its end: a file that is not JSON as docs/json.md has
// it is refused at file:line:col as plain replay refuses it, whatever
// encoding/json made of it.
func ReadRun(file string, r io.Reader) (*RunRecord, error) {
	pr, pw := io.Pipe()
	checked := make(chan error, 1)
	go func() {
		err := replay.CheckJSON(file, pr)
		if err != nil {
			// The file is refused at its first syntax error: the
			// writer's next write fails, so the rest, which may never
			// end (/dev/zero), is not read. Draining it instead kept
			// replay --trace-only -f html /dev/zero running forever.
			pr.CloseWithError(errRefused)
		}
		_, _ = io.Copy(io.Discard, pr)
		checked <- err
	}()
	rec, err := readRun(io.TeeReader(r, pw))
	_, rerr := io.Copy(pw, r) // the rest, where a syntax error may still be
	pw.CloseWithError(rerr)
	if cerr := <-checked; cerr != nil && (rerr == nil || errors.Is(rerr, errRefused)) {
		return nil, cerr
	}
	if err == nil {
		err = rerr
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return rec, nil
}

// errRefused stops ReadRun's copy once the checker refused the file.
var errRefused = errors.New("refused")

// readRun decodes what ReadRun reads.
func readRun(r io.Reader) (*RunRecord, error) {
	dec := json.NewDecoder(r)
	rec := &RunRecord{}
	var top pilotage.Trace
	var trace *pilotage.Trace
	err := object(dec, func(key string) error {
		switch key {
		case "run_id":
			return dec.Decode(&rec.RunID)
		case "outcome":
			return dec.Decode(&rec.Outcome)
		case "output":
			return dec.Decode(&rec.Output)
		case "narration":
			return dec.Decode(&rec.Narration)
		case "diagnostics":
			return dec.Decode(&rec.Diagnostics)
		case "level":
			return dec.Decode(&top.Level)
		case "steps":
			return rec.steps(dec, &top)
		case "trace":
			t := &pilotage.Trace{}
			err := object(dec, func(key string) error {
				trace = t // a trace member that is an object, not null
				switch key {
				case "run_id":
					return dec.Decode(&t.RunID)
				case "level":
					return dec.Decode(&t.Level)
				case "outcome":
					return dec.Decode(&t.Outcome)
				case "steps":
					return rec.steps(dec, t)
				}
				return inputs.SkipValue(dec)
			})
			return err
		}
		return inputs.SkipValue(dec)
	})
	if err != nil {
		return nil, fmt.Errorf("not a trace or a response carrying one: %v", strings.TrimPrefix(err.Error(), "json: "))
	}
	switch {
	case trace != nil:
		rec.Trace = trace
	case top.Steps != nil:
		rec.Trace = &top
		top.RunID, top.Outcome = rec.RunID, rec.Outcome
	case rec.RunID == "":
		return nil, fmt.Errorf("not a trace or a response carrying one: no run_id, trace or steps")
	}
	return rec, nil
}

// errShape is a member that is not what a trace has there.
var errShape = errors.New("a member has the wrong type")

// object reads one JSON object from dec, calling member for each key
// with the decoder at the value; null reads as an empty object.
func object(dec *json.Decoder, member func(key string) error) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		return nil
	}
	if tok != json.Delim('{') {
		return errShape
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := k.(string)
		if err := member(key); err != nil {
			return err
		}
	}
	_, err = dec.Token()
	return err
}

// steps streams a steps array into t, keeping the first maxTimelineRows.
func (rec *RunRecord) steps(dec *json.Decoder, t *pilotage.Trace) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok != json.Delim('[') {
		return errShape
	}
	t.Steps = []pilotage.TraceStep{}
	for dec.More() {
		if len(t.Steps) == maxTimelineRows {
			rec.More++
			if err := inputs.SkipValue(dec); err != nil {
				return err
			}
			continue
		}
		var s pilotage.TraceStep
		if err := dec.Decode(&s); err != nil {
			return err
		}
		t.Steps = append(t.Steps, s)
	}
	_, err = dec.Token()
	return err
}

// NewTimeline lays a Run out on its time axis. An entry's start is the
// sum of the durations of the leaf entries before it: a branch, a loop or
// an expanded sub-program call opens where its first inner entry starts
// and lasts its own t_ms, which holds its body's. Depth is read from the id: each #n is a loop
// level and each / a sub-program level (§5.8.2).
func NewTimeline(rec *RunRecord) *Timeline {
	tl := &Timeline{RunID: rec.RunID, Outcome: rec.Outcome, Narration: cutText(rec.Narration)}
	tl.Title = "pilotage run " + report.Clip(rec.RunID) + ": " + report.Clip(rec.Outcome.Status)
	if len(rec.Output) > 0 {
		tl.Output = cutText(indentedCut(rec.Output))
	}
	for i, d := range rec.Diagnostics {
		if i == maxTimelineRows {
			break
		}
		path, _ := json.Marshal(d.Path)
		tl.Diagnostics = append(tl.Diagnostics, DiagnosticRow{Severity: d.Severity, Code: d.Code, Path: strings.Trim(string(path), `"`), Message: cutLine(d.Message, 2000), Hint: cutLine(d.Hint, 2000)})
	}
	if rec.Trace == nil {
		return tl
	}
	tl.Level = rec.Trace.Level
	steps := rec.Trace.Steps
	tl.More = rec.More
	if len(steps) > maxTimelineRows {
		tl.More += len(steps) - maxTimelineRows
		steps = steps[:maxTimelineRows]
	}
	type span struct {
		start, dur float64
		container  bool
	}
	spans := make([]span, len(steps))
	cursor := 0.0
	for i, s := range steps {
		d := 0.0
		if s.TMs != nil && *s.TMs >= 0 {
			d = *s.TMs
			tl.Timed = true
		}
		// A sub-program call whose entries follow it (expanded, §5.8.3)
		// spans them as a branch or loop spans its body.
		calls := i+1 < len(steps) && strings.HasPrefix(steps[i+1].ID, s.ID+"/")
		spans[i] = span{cursor, d, s.Kind == pilotage.KindBranch || s.Kind == pilotage.KindLoop || calls}
		if !spans[i].container {
			cursor += d
		}
		tl.TotalMs = max(tl.TotalMs, cursor, spans[i].start+d)
	}
	total := tl.TotalMs
	if total <= 0 {
		total = 1
	}
	for i, s := range steps {
		row := TimeRow{ID: s.ID, Kind: dashIf(s.Kind), Calls: strings.Join(s.Calls, ", "), Status: s.Outcome.Status, OK: s.Outcome.OK,
			Depth: strings.Count(s.ID, "#") + strings.Count(s.ID, "/"), Time: "-", Control: spans[i].container}
		row.Left = 100 * spans[i].start / total
		row.Width = max(100*spans[i].dur/total, 0.4)
		if s.TMs != nil {
			row.Time = ms(*s.TMs)
		}
		row.Decisions = decisionsText(s.Decisions)
		if len(s.Output) > 0 && string(s.Output) != "null" {
			row.Output = cutLine(string(s.Output), 160)
		}
		tl.Rows = append(tl.Rows, row)
	}
	for _, f := range []float64{0, 0.25, 0.5, 0.75, 1} {
		tl.Ticks = append(tl.Ticks, Tick{Left: 100 * f, Label: ms(f * tl.TotalMs)})
	}
	return tl
}

// decisionsText tells a branch's arm and why, or a loop's decisions
// counted.
func decisionsText(ds []pilotage.Decision) string {
	if len(ds) == 0 {
		return ""
	}
	if len(ds) == 1 {
		s := "took " + ds[0].Took
		if ds[0].Because != "" {
			s += " (" + ds[0].Because + ")"
		}
		return cutLine(s, 300)
	}
	n := map[string]int{}
	var order []string
	for _, d := range ds {
		if n[d.Took] == 0 {
			order = append(order, d.Took)
		}
		n[d.Took]++
	}
	var parts []string
	for _, t := range order {
		parts = append(parts, fmt.Sprintf("%s ×%d", t, n[t]))
	}
	return cutLine(strings.Join(parts, ", "), 300)
}

func cutText(s string) string {
	if len(s) <= maxValueText {
		return s
	}
	return cutLine(s, maxValueText)
}

// indentedCut is the value raw indented (report.IndentJSON), or raw as
// it is when it is not JSON, cut a byte past maxValueText so cutText
// still marks the cut: indented whole, a deep value grows far beyond
// what is shown.
func indentedCut(raw json.RawMessage) string {
	var compact bytes.Buffer
	if json.Compact(&compact, raw) != nil {
		return string(raw[:min(len(raw), maxValueText+1)])
	}
	out := &prefixWriter{room: maxValueText + 1}
	report.IndentJSON(out, compact.Bytes()) // its only error is a full prefixWriter
	return out.b.String()
}

// prefixWriter keeps the first room bytes written to it and refuses
// the rest.
type prefixWriter struct {
	b    bytes.Buffer
	room int
}

var errFull = errors.New("enough written")

func (p *prefixWriter) Write(b []byte) (int, error) {
	if len(b) > p.room {
		p.b.Write(b[:p.room])
		n := p.room
		p.room = 0
		return n, errFull
	}
	p.room -= len(b)
	return p.b.Write(b)
}

// cutLine cuts s to at most n bytes on a character boundary.
func cutLine(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// WriteHTML writes the timeline as one self-contained HTML page.
func (tl *Timeline) WriteHTML(w io.Writer) error {
	return pages.ExecuteTemplate(w, "timeline.html", struct {
		*Timeline
		CSS any
	}{tl, css})
}
