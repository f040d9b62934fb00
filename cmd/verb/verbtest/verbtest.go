// Package verbtest calls a verb function as the command line would, with
// empty standard input, and collects what it printed and its exit code,
// for the tests of the verb packages.
package verbtest

import (
	"bytes"
	"strings"

	"github.com/pilotage-dev/pilotage/cmd/verb"
	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// Result is what a verb printed, with the message of a usage error
// appended to Err as the command line prints it, and its exit code.
type Result struct {
	Out, Err string
	Code     int
}

// Call runs f on fresh streams.
func Call(f func(verb.Streams) error) Result {
	var out, errb bytes.Buffer
	err := f(verb.Streams{In: strings.NewReader(""), Out: &out, Err: &errb})
	if err != nil && verb.Code(err) == verb.ExitUsage {
		errb.WriteString(err.Error())
	}
	return Result{Out: out.String(), Err: errb.String(), Code: verb.Code(err)}
}

// TextReport is a verb.Reporter that writes the report as text, as
// --format text does without pilotage.yaml.
type TextReport struct{}

// Report writes rep and fails on its errors.
func (TextReport) Report(s verb.Streams, rep *report.Report) error {
	if err := report.Write(s.Out, report.Text, rep, report.Options{}); err != nil {
		return err
	}
	if rep.Failed(false) {
		return verb.Findings
	}
	return nil
}
