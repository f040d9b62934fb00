package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/language"
)

// RuleSummaryTruncation is the ID of the rule the checks cite as it.
const RuleSummaryTruncation = "summary-truncation"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleSummaryTruncation, Category: CatClosedSets, Section: "5.8.1", Severity: report.Error,
	Summary: "Step outputs are truncated exactly as the closed-sets guide documents."}})

// truncatedForm is the engine's summary truncation of an output.
type truncatedForm struct {
	Truncated *bool   `json:"truncated"`
	Bytes     *int    `json:"bytes"`
	Preview   *string `json:"preview"`
}

// truncation checks an output against the documented truncation form
// (§5.8.1): at summary, outputs longer than the limit are truncated and
// truncated ones follow the form; at full nothing is truncated.
func (c *checker) truncation(e *entry) {
	out := e.w.Output
	if c.lang == nil || !c.lang.engineTruncation || len(out) == 0 {
		return
	}
	id := *e.w.ID
	var t truncatedForm
	if out[0] == '{' && json.Unmarshal(out, &t) == nil && t.Truncated != nil && *t.Truncated {
		c.add(finding{rule: RuleSummaryTruncation, c: ifFull, at: e.at("/output"),
			msg: fmt.Sprintf("output of %q is truncated, but a full trace carries whole outputs", report.Clip(id))})
		if t.Bytes == nil || *t.Bytes <= language.TruncateBytes || t.Preview == nil || utf8.RuneCountInString(*t.Preview) > language.PreviewRunes {
			c.add(finding{rule: RuleSummaryTruncation, c: ifSummary, at: e.at("/output"),
				msg: fmt.Sprintf("truncated output of %q is not in the documented form", report.Clip(id)),
				hint: fmt.Sprintf("{\"truncated\": true, \"bytes\": N > %d, \"preview\": at most %d characters}, as the closed-sets guide says",
					language.TruncateBytes, language.PreviewRunes)})
		}
		return
	}
	if len(out) <= language.TruncateBytes {
		return
	}
	var buf bytes.Buffer
	if json.Compact(&buf, out) == nil && buf.Len() > language.TruncateBytes {
		n := buf.Len()
		c.add(finding{rule: RuleSummaryTruncation, c: ifSummary, at: e.at("/output"),
			msg:  fmt.Sprintf("output of %q is %d bytes of JSON; at summary outputs over %d bytes are truncated", report.Clip(id), n, language.TruncateBytes),
			hint: "the closed-sets guide's Summary truncation section documents the form"})
	}
}
