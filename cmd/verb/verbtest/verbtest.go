// Package verbtest calls a verb function as the command line would, with
// empty standard input, and collects what it printed and its exit code,
// for the tests of the verb packages.
package verbtest

import (
	"bytes"
	"cmp"
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

// Reporter is a verb.Reporter that writes the report in Format, text
// when empty, as --format does without pilotage.yaml.
type Reporter struct{ Format report.Format }

func (r Reporter) format() report.Format { return cmp.Or(r.Format, report.Text) }

// Report writes rep and fails on its errors.
func (r Reporter) Report(s verb.Streams, rep *report.Report) error {
	if err := report.Write(s.Out, r.format(), rep, report.Options{}); err != nil {
		return err
	}
	return failed(rep)
}

// Stream writes the batches as they come and fails on their errors.
func (r Reporter) Stream(s verb.Streams, b verb.Batches) error {
	st := report.NewStream(s.Out, r.format(), b.Head, report.Options{})
	st.DropRepeats = b.DropRepeats
	err := b.Produce(func(r *report.Report, next string) error {
		st.AddReport(r)
		if next == "" {
			return nil
		}
		return st.Flush(next, 0)
	})
	if err != nil {
		return err
	}
	if err := st.Close(); err != nil {
		return err
	}
	return failed(b.Head)
}

// failed is verb.Findings when rep has errors.
func failed(rep *report.Report) error {
	if rep.Failed(false) {
		return verb.Findings
	}
	return nil
}
