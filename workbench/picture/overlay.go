package picture

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// Overlay is what traces say of one plan step, aggregated over every
// entry of it, so a step run a million times is one box with a count.
type Overlay struct {
	// Entries counts the trace entries of the step; Statuses counts them
	// by outcome status.
	Entries  int
	Statuses map[string]int
	// Ms sums the durations (t_ms) of the Timed entries; MaxMs is the
	// longest.
	Ms, MaxMs float64
	Timed     int
	// Iterations counts a loop's continue decisions.
	Iterations int
	// Findings are the replay findings that concern the step.
	Findings []report.Finding
	// Expanded counts the entries of an expanded sub-program run by the
	// step, by their own base id (§5.8.3).
	Expanded map[string]int
}

// Ran reports whether the step has trace entries.
func (o *Overlay) Ran() bool { return o != nil && o.Entries > 0 }

// Flagged reports whether findings concern the step.
func (o *Overlay) Flagged() bool { return o != nil && len(o.Findings) > 0 }

func (o *Overlay) iterated() bool { return o != nil && o.Iterations > 0 }

// lines are the overlay's text in a box.
func (o *Overlay) lines() []string {
	if !o.Ran() {
		out := []string{"not run"}
		if o.Flagged() {
			out = append(out, "⚠ "+report.Count(len(o.Findings), "finding"))
		}
		return out
	}
	runs := "ran once"
	if o.Entries > 1 {
		runs = fmt.Sprintf("ran %d×", o.Entries)
	}
	out := []string{runs + ": " + o.StatusText()}
	if o.Timed > 0 {
		out = append(out, "took "+o.TimeText())
	}
	if o.Flagged() {
		out = append(out, "⚠ "+report.Count(len(o.Findings), "finding"))
	}
	return out
}

// StatusText lists the statuses with their counts, most frequent first.
func (o *Overlay) StatusText() string {
	if o == nil || len(o.Statuses) == 0 {
		return "-"
	}
	type sc struct {
		s string
		n int
	}
	var all []sc
	for s, n := range o.Statuses {
		all = append(all, sc{s, n})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].n != all[j].n {
			return all[i].n > all[j].n
		}
		return all[i].s < all[j].s
	})
	var parts []string
	for _, x := range all {
		if len(all) == 1 && o.Entries == x.n {
			parts = append(parts, x.s)
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %d", x.s, x.n))
	}
	return strings.Join(parts, ", ")
}

// TimeText gives the step's time: its duration, or for several entries
// their total and the longest.
func (o *Overlay) TimeText() string {
	if o == nil || o.Timed == 0 {
		return "-"
	}
	if o.Timed == 1 {
		return ms(o.Ms)
	}
	return fmt.Sprintf("%s total, %s max", ms(o.Ms), ms(o.MaxMs))
}

// ms writes milliseconds with as many digits as they deserve.
func ms(v float64) string {
	switch {
	case v >= 10000:
		return fmt.Sprintf("%.1f s", v/1000)
	case v >= 100 || v == float64(int64(v)):
		return fmt.Sprintf("%.0f ms", v)
	}
	return fmt.Sprintf("%.2g ms", v)
}

// overlaid reports whether traces were laid over the graph.
func (g *Graph) overlaid() bool { return g.traced }
