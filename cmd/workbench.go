package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// pdlErrorsCap says, in the help of the verbs that need a PDL that
// compiles (serve, validate, plan, run), how many of its errors they
// print: the default cap of lint and build, as they have no findings of
// their own to cap and so no --max-per-rule.
var pdlErrorsCap = fmt.Sprintf("at most %d errors of one rule are listed, the rest counted", report.DefaultMaxPerRule)

// registerPDLFlags adds the flags every workbench verb shares.
func registerPDLFlags(c *cobra.Command, principal, language *string) {
	c.Flags().StringVar(principal, "principal", "", "act as the PDL principal `NAME` (what it may see, §10.3); left out, a PDL that declares principals shows no catalog entry")
	if language != nil {
		c.Flags().StringVar(language, "language", "", "the Language `ID` to use when the PDL defines several")
	}
}
