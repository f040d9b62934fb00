package cmd

import (
	"io"

	"github.com/pilotage-dev/pilotage/cmd/progress"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/replay"
	"github.com/spf13/cobra"
)

// progressFlag registers --progress on a verb whose work can take long.
func progressFlag(c *cobra.Command, mode *string) {
	c.Flags().StringVar(mode, "progress", string(progress.Auto), progress.FlagUsage)
}

// validateWithProgress checks the report flags and a --progress value
// together, before any work is done, for the verbs that have both.
func (f *reportFlags) validateWithProgress(mode string) (report.Format, progress.Mode, error) {
	format, err := f.setup()
	if err != nil {
		return "", "", err
	}
	m, err := progress.ParseMode(mode)
	if err != nil {
		return "", "", usageErr("%v", err)
	}
	return format, m, nil
}

// meteredInputs makes every input count the bytes read from it on m.
func meteredInputs(m *progress.Meter, inputs []replay.Input) {
	for i := range inputs {
		open := inputs[i].Open
		inputs[i].Open = func() (io.ReadCloser, error) {
			rc, err := open()
			if err != nil {
				return nil, err
			}
			return struct {
				io.Reader
				io.Closer
			}{m.Reader(rc), rc}, nil
		}
	}
}
