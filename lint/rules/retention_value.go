package rules

import (
	"fmt"
	"strconv"
	"strings"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// retentionValue checks `retention` (§6.6): "none", "session" or an ISO
// 8601 duration. A client treats any other value as "none"
// (data-model.md), so it is a closed-set value (reading 11). A zero
// duration is well-formed but commits to keeping nothing; it is a warning
// that asks for the honest spelling, "none".
var retentionValue = &lint.Rule{
	ID:       "retention-value",
	Category: lint.CatRetention,
	Section:  "6.6",
	Severity: report.Error,
	Summary:  "`retention` must be \"none\", \"session\" or an ISO 8601 duration such as \"P7D\".",
	Check: func(p *lint.Pass) {
		for _, l := range p.Languages {
			r, ok := stringField(l, "retention")
			if !ok || r == pilotage.RetentionNone || r == pilotage.RetentionSession {
				continue
			}
			ptr := l.Pointer + "/retention"
			d, err := pilotage.ParseISODuration(r)
			switch {
			case err != nil:
				p.ReportAs(p.ClosedSetSeverity(), ptr, false,
					fmt.Sprintf("%s has retention %q, which is neither \"none\" nor \"session\", and %v; a client treats it as \"none\"",
						langLabel(l), report.Clip(r), clipErr(err, r)),
					retentionHint(r))
			case d == 0:
				p.ReportAs(report.Warning, ptr, false,
					fmt.Sprintf("%s has retention %q, a zero duration that keeps no Run; it means \"none\" but hides it from clients that look for \"none\"", langLabel(l), report.Clip(r)),
					"write \"none\" if Runs are not kept, or a positive duration such as \"PT1H\"")
			}
		}
	},
}

// retentionHint suggests a fix for an unusable retention value: the
// keyword or duration it most likely means.
func retentionHint(r string) string {
	trimmed := strings.TrimSpace(r)
	if lower := strings.ToLower(trimmed); lower == pilotage.RetentionNone || lower == pilotage.RetentionSession {
		return fmt.Sprintf("write %q: the keywords are lower case, without spaces", report.Clip(lower))
	}
	if upper := strings.ToUpper(trimmed); upper != r {
		if _, err := pilotage.ParseISODuration(upper); err == nil {
			return fmt.Sprintf("write %q: ISO 8601 durations are upper case, without spaces", report.Clip(upper))
		}
	}
	return "write \"none\", \"session\", or a duration of the form PnYnMnWnDTnHnMnS: \"P7D\" is seven days, \"PT1H\" one hour, \"P1Y\" a year"
}

func init() { register(retentionValue) }

// clipErr is the text of err, which quotes the value r whole, with r
// clipped as the message quotes it (report.Clip), and no longer than a
// few clipped values: a part of r it names may be as long.
func clipErr(err error, r string) string {
	if len(r) <= report.ClipBytes {
		return err.Error()
	}
	why := strings.Replace(err.Error(), strconv.Quote(r), report.Quote(r), 1)
	if len(why) > 4*report.ClipBytes {
		why = why[:4*report.ClipBytes-3] + "…"
	}
	return strings.ToValidUTF8(why, "")
}
