package cmd

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/workbench/compile"
	"github.com/pilotage-dev/pilotage/workbench/engine"
	"github.com/pilotage-dev/pilotage/workbench/engine/runstore"
)

// loadPDL compiles a PDL file; errors are printed to w with their source
// lines, at most max of one rule (a file repeating one wrong line gives
// hundreds of thousands), and become exit 2, since a broken definition is
// unusable input.
func loadPDL(w io.Writer, name string, color bool, max int) (*compile.Result, error) {
	src, err := os.ReadFile(name)
	if err != nil {
		return nil, usageErr("%v", readErr(err))
	}
	res, rep := compileCapped(name, src, max)
	if !res.OK() {
		if err := writeCompileReport(w, name, res, rep, color); err != nil {
			return nil, usageErr("writing errors: %v", err)
		}
		return nil, &exitError{code: ExitUsage}
	}
	return res, nil
}

// compileCapped compiles the PDL file name holding src, capping as it
// goes so that a file wrong in every line never holds more than max
// findings of a rule, and returns the report of its findings as well.
func compileCapped(name string, src []byte, max int) (*compile.Result, *report.Report) {
	rep := &report.Report{Cap: report.NewCap(max)}
	res := compile.Source(name, src, compile.Options{Dir: filepath.Dir(name), Cap: rep.Cap})
	rep.AddListed(res.Findings...)
	return res, rep
}

// writeCompileReport prints rep, which holds res's findings, as text.
func writeCompileReport(w io.Writer, name string, res *compile.Result, rep *report.Report, color bool) error {
	rep.Tool, rep.Sources, rep.Files = "pilotage", res.Sources, []string{name}
	rep.Summary.Files = 1
	rep.Sort()
	return report.Write(w, report.Text, rep, report.Options{Color: color})
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

// checkPrincipal rejects a --principal the PDL does not declare: serving
// as a name the engine does not know would silently show an empty catalog.
func checkPrincipal(srv *language.Server, name string) error {
	if name == "" {
		return nil
	}
	var names []string
	for _, p := range srv.Principals {
		if p.Name == name {
			return nil
		}
		names = append(names, p.Name)
	}
	if len(names) == 0 {
		return usageErr("--principal %q: the PDL declares no principals", name)
	}
	return usageErr("--principal %q is not declared in the PDL; declared: %s", name, strings.Join(names, ", "))
}

// pickLanguage returns the Language a command works on: --language, or
// the only one.
func pickLanguage(srv *language.Server, id string) (*language.Language, error) {
	var ids []string
	for _, l := range srv.Languages {
		if l.ID == id || (id == "" && len(srv.Languages) == 1) {
			return l, nil
		}
		ids = append(ids, l.ID)
	}
	slices.Sort(ids)
	if id == "" {
		return nil, usageErr("the PDL defines %d Languages; choose one with --language (%s)", len(ids), strings.Join(ids, ", "))
	}
	return nil, usageErr("--language %q is not defined in the PDL; defined: %s", id, strings.Join(ids, ", "))
}

// registerPDLFlags adds the flags every workbench verb shares.
func registerPDLFlags(c *cobra.Command, principal, language *string) {
	c.Flags().StringVar(principal, "principal", "", "act as the PDL principal `NAME` (what it may see, §10.3); left out, a PDL that declares principals shows no catalog entry")
	if language != nil {
		c.Flags().StringVar(language, "language", "", "the Language `ID` to use when the PDL defines several")
	}
}

// tokens maps each principal's bearer token to its name, for HTTP.
func tokens(srv *language.Server) map[string]string {
	m := map[string]string{}
	for _, p := range srv.Principals {
		if p.Token != "" {
			m[p.Token] = p.Name
		}
	}
	return m
}
