package cmd

import (
	"github.com/pilotage-dev/pilotage/cmd/progress"
	"github.com/pilotage-dev/pilotage/internal/base/report"
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
