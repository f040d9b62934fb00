package verb

import (
	"io"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/workbench/compile"
)

// LoadPDL compiles a PDL file; errors are printed to w with their source
// lines, at most max of one rule (a file repeating one wrong line gives
// hundreds of thousands), and become exit 2, since a broken definition is
// unusable input.
func LoadPDL(w io.Writer, name string, color bool, max int) (*compile.Result, error) {
	res, rep, err := compile.Load(name, max)
	if err != nil {
		return nil, Usage("%v", ReadErr(err))
	}
	if !res.OK() {
		if err := report.Write(w, report.Text, rep, report.Options{Color: color}); err != nil {
			return nil, Usage("writing errors: %v", err)
		}
		return nil, &ExitError{Code: ExitUsage}
	}
	return res, nil
}
