package cmd

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/pilotage-dev/pilotage/cmd/verb"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/workbench/compile"
	"github.com/pilotage-dev/pilotage/workbench/engine"
	"github.com/pilotage-dev/pilotage/workbench/engine/runstore"
)

// loadPDL is verb.LoadPDL.
func loadPDL(w io.Writer, name string, color bool, max int) (*compile.Result, error) {
	return verb.LoadPDL(w, name, color, max)
}

// pdlErrorsCap says, in the help of the verbs that need a PDL that
// compiles (serve, validate, plan, run), how many of its errors they
// print: the default cap of lint and build, as they have no findings of
// their own to cap and so no --max-per-rule.
var pdlErrorsCap = fmt.Sprintf("at most %d errors of one rule are listed, the rest counted", report.DefaultMaxPerRule)

// newEngine starts the workbench engine. Its default operation addresses
// are internal/model/binding's tool names, so the manifest names exactly the
// tools serve publishes.
func newEngine(srv *language.Server, dataDir string, retain runstore.Limits) (*engine.Engine, error) {
	eng, err := engine.New(srv, engine.Options{DataDir: dataDir, Retain: retain})
	var pe *fs.PathError
	if err != nil && dataDir != "" && errors.As(err, &pe) {
		// The data directory could not be made or opened: name the flag
		// and the file system's reason, not Go's "mkdir" or "open".
		why := pe.Err.Error()
		if filepath.Clean(pe.Path) != filepath.Clean(dataDir) {
			why = pe.Path + ": " + why
		}
		return nil, usageErr("--data %s: %s; give a directory serve may create and write", dataDir, why)
	}
	if err != nil {
		return nil, usageErr("starting the engine: %v", err)
	}
	return eng, nil
}

// registerPDLFlags adds the flags every workbench verb shares.
func registerPDLFlags(c *cobra.Command, principal, language *string) {
	c.Flags().StringVar(principal, "principal", "", "act as the PDL principal `NAME` (what it may see, §10.3); left out, a PDL that declares principals shows no catalog entry")
	if language != nil {
		c.Flags().StringVar(language, "language", "", "the Language `ID` to use when the PDL defines several")
	}
}
