package verb

import (
	"errors"
	"io"
	"io/fs"
	"maps"
	"path/filepath"

	"github.com/pilotage-dev/pilotage/internal/base/inputs"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/workbench/compile"
	"github.com/pilotage-dev/pilotage/workbench/engine"
)

// LoadPDL compiles a PDL file; errors are printed to w with their source
// lines, at most max of one rule (a file repeating one wrong line gives
// hundreds of thousands), and become exit 2, since a broken definition is
// unusable input. takes is what names the file ("--lang", "build"), for
// the error when it is JSON or YAML.
func LoadPDL(w io.Writer, name, takes string, color bool, max int) (*compile.Result, error) {
	res, err := LoadPDLs(w, []string{name}, takes, color, max)
	if err != nil {
		return nil, err
	}
	return res[0], nil
}

// LoadPDLs is LoadPDL of several files: it compiles every one and prints
// the errors of all in one report (CompilePDLs).
func LoadPDLs(w io.Writer, names []string, takes string, color bool, max int) ([]*compile.Result, error) {
	out, failed, err := CompilePDLs(names, takes, max)
	if err == nil && failed != nil {
		err = Unusable(w, failed, color)
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// CompilePDLs compiles every named PDL file: out[i] is names[i]'s, nil
// when it has errors, and failed the errors of all of those in one
// report, nil when there are none, so a build of several files names
// every broken one, and a guide or schema file two of them share is
// reported once. A file that cannot be read or is no PDL stops it.
func CompilePDLs(names []string, takes string, max int) (out []*compile.Result, failed *report.Report, err error) {
	out = make([]*compile.Result, len(names))
	for i, name := range names {
		res, rep, err := compile.Load(name, max)
		var np *compile.NotPDLError
		if errors.As(err, &np) {
			return nil, nil, Usage("%v; %s takes the FILE.pdl that defines the Language", np, takes)
		}
		if err != nil {
			return nil, nil, Usage("%v", ReadErr(err))
		}
		switch {
		case res.OK():
			out[i] = res
		case failed == nil:
			failed = rep
		default:
			failed.AddListed(rep.Findings...)
			maps.Copy(failed.Sources, rep.Sources)
		}
	}
	if failed != nil {
		// The footer counts every file checked, as lint's does.
		failed.Files, failed.Summary.Files = names, len(names)
		failed.Order()
		failed.Dedupe()
	}
	return out, failed, nil
}

// Unusable writes rep, the errors of an input the verb cannot use (a PDL,
// a program), to w as text with their source lines, and returns exit 2:
// unusable input is a usage error, not the verb's findings.
func Unusable(w io.Writer, rep *report.Report, color bool) error {
	if err := report.Write(w, report.Text, rep, report.Options{Color: color}); err != nil {
		return Usage("writing errors: %v", err)
	}
	return &ExitError{Code: ExitUsage}
}

// NewEngine starts the workbench engine with opts. Its default operation
// addresses are internal/model/binding's tool names, so the manifest names
// exactly the tools serve publishes.
func NewEngine(srv *language.Server, opts engine.Options) (*engine.Engine, error) {
	dataDir := opts.DataDir
	eng, err := engine.New(srv, opts)
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

// ProgramBound is what a verb reads of a program, and of a context, of a
// Language: the engine refuses a larger one anyway (limits program).
func ProgramBound(l language.Limits, what string) inputs.Bound {
	return inputs.Bound{Bytes: int64(l.WithDefaults().ProgramBytes), Of: "the Language's limits program",
		Hint: "give a smaller " + what + ", or raise limits program in the Language's PDL"}
}

// InputBound is what a verb reads of a Run's input: a Run holds at most
// limits memory of values, and values take as many bytes as their JSON or
// more (only blanks and escapes take fewer).
func InputBound(l language.Limits) inputs.Bound {
	return inputs.Bound{Bytes: l.WithDefaults().MemoryBytes, Of: "the Language's limits memory",
		Hint: "give a smaller input, or raise limits memory in the Language's PDL"}
}

// ArtifactBound is what a verb reads of a JSON artifact (manifest,
// snapshot, plan) or of a program sent to a server whose limits are not
// known: inputs.MaxArtifact.
var ArtifactBound = inputs.Bound{Bytes: inputs.MaxArtifact, Of: "the most pilotage reads of one JSON file",
	Hint: "check that the right file is named (docs/json.md, \"Sizes\")"}
