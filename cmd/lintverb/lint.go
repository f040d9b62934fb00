// Package lintverb is pilotage lint as a function: it expands and reads
// the inputs, builds a --baseline, and runs pdllint over them, for the
// command line and for tests that call it directly.
package lintverb

import (
	"context"
	"fmt"
	"slices"

	"github.com/pilotage-dev/pilotage/cmd/progress"
	"github.com/pilotage-dev/pilotage/cmd/verb"
	"github.com/pilotage-dev/pilotage/internal/base/inputs"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
	"github.com/pilotage-dev/pilotage/lint/rules"
	"github.com/pilotage-dev/pilotage/workbench/pdllint"
)

// Params are pilotage lint's arguments and flags.
type Params struct {
	// Files are the FILE arguments: files, directories, globs, or - for
	// standard input.
	Files []string
	// Disable are the rule IDs turned off.
	Disable []string
	// Baseline is the earlier capture every input is compared with, or "".
	Baseline string
	// MaxPerRule bounds the findings listed per rule and file.
	MaxPerRule int
	// Verbose names on standard error each file a walk skipped.
	Verbose bool
	// Progress says when the status line is drawn.
	Progress progress.Mode
	// Output is the -o file, which must not be an input.
	Output string
	// Ignored says which walked paths pilotage.yaml ignores; nil for none.
	Ignored func(path string) bool
	// Report writes the report and says how lint ends.
	Report verb.Reporter
}

// Lint checks the inputs p names against every rule not disabled and
// hands the report to p.Report. Its error carries the exit code
// (verb.Code): 2 for usage errors and unreadable inputs.
func Lint(_ context.Context, p Params, s verb.Streams) error {
	if len(p.Files) == 0 {
		return verb.Usage("lint needs at least one FILE (or - for standard input); see 'pilotage lint --help'")
	}
	if err := verb.CheckMaxPerRule(p.MaxPerRule); err != nil {
		return err
	}
	if err := verb.OutputNotInput(p.Output, append(slices.Clip(p.Files), p.Baseline)...); err != nil {
		return err
	}
	files, err := verb.Expand(s, p.Files, inputs.Lint, p.Ignored, p.Verbose, p.Baseline)
	if err != nil {
		return err
	}
	if err := verb.OneStdin(append(slices.Clip(files), p.Baseline)...); err != nil {
		return err
	}
	cfg := lint.Config{Disabled: map[string]bool{}, MaxPerRule: p.MaxPerRule}
	for _, id := range p.Disable {
		cfg.Disabled[id] = true
	}
	if p.Baseline != "" {
		if cfg.Baseline, err = verb.ReadBaseline(s, p.Baseline); err != nil {
			return err
		}
	}
	c, err := pdllint.NewChecker(rules.All(), cfg)
	if err != nil {
		return verb.Usage("%v", err)
	}
	m := progress.Start(s.Err, p.Progress, verb.InputsSize(s, files), "lint", "")
	defer m.Stop()
	head := c.Head()
	head.Files = files
	return p.Report.Stream(s, verb.Batches{Head: head, DropRepeats: true, Produce: func(add func(*report.Report, string) error) error {
		ahead := verb.Ahead(files)
		var read int64
		for i, name := range files {
			// Each file is read when its turn comes and its report
			// written before the next is read.
			src, err := verb.ReadInput(s, name, verb.Bound(name))
			if err != nil {
				return err
			}
			m.AddBytes(int64(len(src)))
			read += int64(len(src))
			if i == len(files)-1 {
				// Files are read whole, quickly: the line then shows
				// that the checking, which cannot be counted, goes on.
				m.SetPhase(fmt.Sprintf("checking %s (%s)", report.Count(len(files), "file"), progress.MB(read)))
			}
			b, err := c.Check(&lint.Input{File: name, Src: src})
			if err != nil {
				return verb.Usage("%v", err)
			}
			if len(b.Findings) > 0 && verb.IsStdout(p.Output) {
				// The report goes where the line is drawn.
				m.Stop()
			}
			if err := add(b, ahead[i]); err != nil {
				return err
			}
		}
		m.Stop()
		head.Rules = c.Rules()
		head.Summary.Files = len(files)
		return nil
	}})
}
