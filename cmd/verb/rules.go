package verb

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// ListRules prints infos for --list-rules of a checking verb, on
// standard output or in the -o file output, as the verb's report. It
// refuses inputs next to --list-rules: it checks nothing, so a CI line
// that gained --list-rules exited 0 whatever its files held.
func ListRules(s Streams, inputs []string, output string, format report.Format, infos []report.RuleInfo) error {
	if len(inputs) > 0 {
		return Usage("--list-rules lists the rules and checks nothing, so it takes no inputs (got %s); drop one or the other", strings.Join(inputs, " "))
	}
	sort.Slice(infos, func(i, j int) bool { return infos[i].ID < infos[j].ID })
	switch format {
	case report.JSON:
		return WriteOutput(s, output, "the rules", func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(map[string]any{"rules": infos})
		})
	case report.Text:
		return WriteOutput(s, output, "the rules", func(w io.Writer) error {
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tCATEGORY\tSECTION\tSEVERITY\tSUMMARY")
			for _, r := range infos {
				// A rule whose findings cite several sections shows the
				// one most cite, and lists them all after its summary,
				// where their length moves no column.
				section, summary := report.Cite(r.Section), r.Summary
				if len(r.Sections) > 1 {
					section += " …"
					summary += " Its findings cite " + report.CiteAll(r.Sections) + "."
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.ID, r.Category, section, r.Severity, summary)
			}
			return tw.Flush()
		})
	}
	return Usage("--list-rules prints text or json, not %s", format)
}
