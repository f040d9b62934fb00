package cmd

import (
	"github.com/spf13/cobra"

	"github.com/pilotage-dev/pilotage/cmd/verb"
	"github.com/pilotage-dev/pilotage/internal/base/inputs"
	"github.com/pilotage-dev/pilotage/internal/config"
)

// verboseFlag registers --verbose, for the verbs whose file arguments
// may be directories and globs.
func verboseFlag(c *cobra.Command, v *bool) {
	c.Flags().BoolVarP(v, "verbose", "v", false, "name on standard error each file a directory or glob walk skipped, and why")
}

// expandArgs is verb.Expand with pilotage.yaml's ignore patterns (cfg
// may be nil).
func expandArgs(s stdio, args []string, p inputs.Picker, cfg *config.Config, verbose bool, exclude ...string) ([]string, error) {
	var ignored func(string) bool
	if cfg != nil {
		ignored = cfg.Ignored
	}
	return verb.Expand(s.verb(), args, p, ignored, verbose, exclude...)
}
