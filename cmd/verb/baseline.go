package verb

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/pilotage-dev/pilotage/internal/base/inputs"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
	"github.com/pilotage-dev/pilotage/workbench/compile"
	"github.com/pilotage-dev/pilotage/workbench/pdllint"
)

// Bound is what lint reads of a file: a PDL file is refused past
// compile.FileBound, anything else is a JSON artifact.
func Bound(name string) inputs.Bound {
	if pdllint.IsPDL(name) {
		return compile.FileBound
	}
	return ArtifactBound
}

// ReadBaseline reads the baseline capture lint and build compare with
// (--baseline, or defaults: baseline of pilotage.yaml). A file named
// *.pdl is built the way lint builds a PDL input, so the evolution rules see the snapshot it
// describes with positions in the PDL; one that does not compile leaves
// nothing to compare with, a usage error like an unreadable file.
func ReadBaseline(s Streams, name string) (*lint.Input, error) {
	src, err := ReadInput(s, name, Bound(name))
	if err != nil {
		// Say which input it was: the files to check are read too.
		var ee *ExitError
		if errors.As(err, &ee) && ee.Err != nil {
			return nil, Usage("baseline %v", ee.Err)
		}
		return nil, err
	}
	if !pdllint.IsPDL(name) {
		return &lint.Input{File: name, Src: src}, nil
	}
	// Only the first error is shown, so one of each rule is all the
	// compiler needs to keep.
	in, res, err := pdllint.Input(name, src, compile.Options{Dir: filepath.Dir(name), Cap: report.NewCap(1)}, nil)
	if err != nil {
		return nil, Usage("baseline %s: %v", name, err)
	}
	if in == nil {
		why := "it defines no Language"
		if i := slices.IndexFunc(res.Findings, func(f report.Finding) bool { return f.Severity == report.Error }); i >= 0 {
			f := res.Findings[i]
			why = fmt.Sprintf("%s:%d:%d: %s", f.File, f.Line, f.Column, f.Message)
		}
		return nil, Usage("baseline %s does not build, so there is nothing to compare with: %s", name, why)
	}
	return in, nil
}
