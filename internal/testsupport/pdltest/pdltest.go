// Package pdltest holds what the PDL packages' tests share: one line per
// finding with its full span, so golden files pin messages, positions and
// hints exactly.
package pdltest

import (
	"bytes"
	"fmt"

	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// Render prints findings one per line: file:line:col[-endline:endcol]
// rule: message [hint: …].
func Render(fs []report.Finding) []byte {
	var b bytes.Buffer
	for _, f := range fs {
		fmt.Fprintf(&b, "%s:%d:%d", f.File, f.Line, f.Column)
		if f.EndLine > 0 {
			fmt.Fprintf(&b, "-%d:%d", f.EndLine, f.EndColumn)
		}
		fmt.Fprintf(&b, " %s: %s", f.Rule, f.Message)
		if f.Hint != "" {
			fmt.Fprintf(&b, " [hint: %s]", f.Hint)
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}
