package verb

import (
	"errors"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/workbench/compile"
	"github.com/pilotage-dev/pilotage/workbench/engine"
	"github.com/pilotage-dev/pilotage/workbench/engine/runstore"
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

// NewEngine starts the workbench engine. Its default operation addresses
// are internal/model/binding's tool names, so the manifest names exactly the
// tools serve publishes.
func NewEngine(srv *language.Server, dataDir string, retain runstore.Limits) (*engine.Engine, error) {
	eng, err := engine.New(srv, engine.Options{DataDir: dataDir, Retain: retain})
	var pe *fs.PathError
	if err != nil && dataDir != "" && errors.As(err, &pe) {
		// The data directory could not be made or opened: name the flag
		// and the file system's reason, not Go's "mkdir" or "open".
		why := pe.Err.Error()
		if filepath.Clean(pe.Path) != filepath.Clean(dataDir) {
			why = pe.Path + ": " + why
		}
		return nil, Usage("--data %s: %s; give a directory serve may create and write", dataDir, why)
	}
	if err != nil {
		return nil, Usage("starting the engine: %v", err)
	}
	return eng, nil
}
