package replay

import (
	"fmt"
	"strconv"
	"strings"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// RuleTraceIDPrefix is the ID of the rule the checks cite as it.
const RuleTraceIDPrefix = "trace-id-prefix"

var _ = registry.Register(&Rule{RuleInfo: report.RuleInfo{ID: RuleTraceIDPrefix, Category: CatIdentity, Section: "5.8.2", Severity: report.Error,
	Summary: "A / prefix names the calling entry that comes right before its expanded entries."}})

// prefix checks a `/` prefix against the entries before it and reports
// whether the entry is unprefixed (so plan correspondence applies).
func (c *checker) prefix(e *entry, id pilotage.TraceID, text string) bool {
	d := len(id.Prefixes)
	if d == 0 {
		c.calls = append(c.calls[:0], text)
		return true
	}
	caller := text[:strings.LastIndexByte(text, '/')]
	switch {
	case d-1 < len(c.calls) && c.calls[d-1] == caller:
		c.calls = append(c.calls[:d], text)
	default:
		before := "no entry"
		if d-1 < len(c.calls) {
			before = strconv.Quote(c.calls[d-1])
		}
		c.add(finding{rule: RuleTraceIDPrefix, at: e.at("/id"),
			msg:  fmt.Sprintf("prefix %q of %q names no calling entry before it (the latest entry at that depth is %s)", report.Clip(caller), report.Clip(text), before),
			hint: "an expanded sub-program's entries follow the entry that called it, prefixed by its complete id (§5.8.2, reading 7)"})
	}
	if c.lang != nil && c.lang.TraceSubprogram != "expanded" {
		c.add(finding{rule: RuleTraceIDPrefix, at: e.at("/id"),
			msg:  fmt.Sprintf("%q is an expanded sub-program entry, but the Language's trace_subprogram is opaque", report.Clip(text)),
			hint: "with opaque sub-programs the call appears as one entry (§5.8.3)"})
	}
	return false
}
