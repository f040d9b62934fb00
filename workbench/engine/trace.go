package engine

import (
	"encoding/json"
	"unicode/utf8"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/model/language"
)

// levelRank orders trace levels (§5.8.1): none < summary < full.
func levelRank(level string) int {
	switch level {
	case pilotage.LevelNone:
		return 0
	case pilotage.LevelSummary:
		return 1
	case pilotage.LevelFull:
		return 2
	}
	return -1
}

// lower returns the lower of two levels.
func lower(a, b string) string {
	if levelRank(a) <= levelRank(b) {
		return a
	}
	return b
}

// ceiling is the Language's declared trace level, summary when unset
// (§4.3 rule 4: execute needs at least summary).
func (l *lang) ceiling() string {
	if l.TraceLevel == pilotage.LevelFull {
		return pilotage.LevelFull
	}
	return pilotage.LevelSummary
}

// render returns t at level: at summary every entry loses its input and
// long outputs are truncated as semantics.go documents (§5.8.1). At
// full the entries are t's own, shared: nothing writes an entry once its
// Run has ended, and a copy was 176 bytes a step more for the response
// and as much for the record kept.
func render(t *pilotage.Trace, level string) *pilotage.Trace {
	out := *t
	out.Level = level
	if level != pilotage.LevelSummary {
		return &out
	}
	out.Steps = make([]pilotage.TraceStep, len(t.Steps))
	for i, s := range t.Steps {
		out.Steps[i] = renderStep(s, level)
	}
	return &out
}

// renderStep is the entry s at level, as render gives it.
func renderStep(s pilotage.TraceStep, level string) pilotage.TraceStep {
	if level == pilotage.LevelSummary {
		s.Input = nil
		s.Output = truncate(s.Output)
	}
	return s
}

// truncated is the summary form of a long output.
type truncated struct {
	Truncated bool   `json:"truncated"`
	Bytes     int    `json:"bytes"`
	Preview   string `json:"preview"`
}

func truncate(raw json.RawMessage) json.RawMessage {
	if len(raw) <= language.TruncateBytes {
		return raw
	}
	cut, n := 0, 0
	for cut < len(raw) && n < language.PreviewRunes {
		_, size := utf8.DecodeRune(raw[cut:])
		cut += size
		n++
	}
	return mustJSON(truncated{Truncated: true, Bytes: len(raw), Preview: string(raw[:cut])})
}
