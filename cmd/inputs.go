package cmd

import (
	"github.com/spf13/cobra"
)

// verboseFlag registers --verbose, for the verbs whose file arguments
// may be directories and globs.
func verboseFlag(c *cobra.Command, v *bool) {
	c.Flags().BoolVarP(v, "verbose", "v", false, "name on standard error each file a directory or glob walk skipped, and why")
}
