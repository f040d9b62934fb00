package cmd

import (
	"encoding/json"
	"runtime/debug"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/spf13/cobra"
)

// toolVersion is set at link time (-ldflags "-X ...cmd.toolVersion=v1.2.3");
// otherwise the module version from the build info is used.
var toolVersion = ""

func versionString() string {
	if toolVersion != "" {
		return toolVersion
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

func newVersionCmd() *cobra.Command {
	var format string
	c := &cobra.Command{
		Use:   "version",
		Short: "Print the pilotage version and the Pilotage spec version it implements",
		Long: `Print the version of this pilotage build and the version of the Pilotage
spec it implements (1.1: Part II and the MCP binding). A release build
prints its tag; a build from a checkout prints its module version, or
"devel". --format json prints {"pilotage": SPEC, "version": TOOL} on one
line, for scripts.

Exit status: 0 printed, 2 usage errors.`,
		Example: `  pilotage version
  pilotage version --format json`,
		Args: needArgs(0, 0, "no arguments"),
		RunE: func(c *cobra.Command, _ []string) error {
			s := streams(c)
			switch format {
			case "text":
				return printf(s, "pilotage %s (Pilotage %s)\n", versionString(), pilotage.Version)
			case "json":
				b, _ := json.Marshal(map[string]string{"version": versionString(), "pilotage": pilotage.Version})
				return printf(s, "%s\n", b)
			}
			return usageErr("unknown format %q; use text or json", format)
		},
	}
	c.Flags().StringVarP(&format, "format", "f", "text", "output format: text or json")
	return c
}
