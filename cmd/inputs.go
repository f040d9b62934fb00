package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/pilotage-dev/pilotage/internal/base/inputs"
	"github.com/pilotage-dev/pilotage/internal/config"
)

// verboseFlag registers --verbose, for the verbs whose file arguments
// may be directories and globs.
func verboseFlag(c *cobra.Command, v *bool) {
	c.Flags().BoolVarP(v, "verbose", "v", false, "name on standard error each file a directory or glob walk skipped, and why")
}

// expandArgs expands directories and globs among args into the files p
// takes, leaving out what pilotage.yaml ignores (cfg may be nil) and
// exclude; with verbose, what was skipped is named on standard error.
func expandArgs(s stdio, args []string, p inputs.Picker, cfg *config.Config, verbose bool, exclude ...string) ([]string, error) {
	opt := inputs.Options{Exclude: exclude}
	if cfg != nil {
		opt.Ignored = cfg.Ignored
	}
	files, skipped, err := inputs.Expand(args, p, opt)
	if verbose {
		for _, sk := range skipped {
			fmt.Fprintf(s.err, "skipped %s: %s\n", sk.File, sk.Why)
		}
	}
	if err != nil {
		return nil, usageErr("%v", err)
	}
	return files, nil
}
