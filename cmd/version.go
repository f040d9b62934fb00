package cmd

import (
	"encoding/json"
	"fmt"
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

// buildCommit is the commit the binary was built from and whether the
// work tree had changes, as go build stamps them (vcs.revision,
// vcs.modified) in a checkout; "" when the build carries none (go test,
// -buildvcs=false, a build outside a repository or in a git worktree).
func buildCommit(bi *debug.BuildInfo) (commit string, modified bool) {
	if bi == nil {
		return "", false
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			commit = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	return commit, modified
}

// versionText is the line version prints: the tool and spec versions,
// then the commit, shortened to 12 hex digits as git shows it, when the
// build knows it.
func versionText(bi *debug.BuildInfo) string {
	line := fmt.Sprintf("pilotage %s (Pilotage %s)", versionString(), pilotage.Version)
	commit, modified := buildCommit(bi)
	if commit == "" {
		return line
	}
	line += ", commit " + commit[:min(12, len(commit))]
	if modified {
		line += " with uncommitted changes"
	}
	return line
}

// versionJSON is version --format json: commit and modified only when
// the build knows the commit.
func versionJSON(bi *debug.BuildInfo) []byte {
	v := struct {
		Commit   string `json:"commit,omitempty"`
		Modified *bool  `json:"modified,omitempty"`
		Pilotage string `json:"pilotage"`
		Version  string `json:"version"`
	}{Pilotage: pilotage.Version, Version: versionString()}
	if commit, modified := buildCommit(bi); commit != "" {
		v.Commit, v.Modified = commit, &modified
	}
	b, _ := json.Marshal(v)
	return b
}

func newVersionCmd() *cobra.Command {
	var format string
	c := &cobra.Command{
		Use:   "version",
		Short: "Print the pilotage version and the Pilotage spec version it implements",
		Long: `Print the version of this pilotage build and the version of the Pilotage
spec it implements (1.1: Part II and the MCP binding). A release build
prints its tag; a build from a checkout prints its module version, or
"devel". A binary go build stamped with its commit (a build in a git
checkout) names it too, and says when the checkout had uncommitted
changes; go run, and go build with -buildvcs=false (check GOFLAGS in
go env), stamp none, and version then names no commit.

--format json prints {"pilotage": SPEC, "version": TOOL} on one line,
for scripts, with "commit" (the full hash) and "modified" when the
build knows them.

Exit status: 0 printed, 2 usage errors.`,
		Example: `  pilotage version
  pilotage version --format json`,
		Args: needArgs(0, 0, "no arguments"),
		RunE: func(c *cobra.Command, _ []string) error {
			s := streams(c)
			bi, _ := debug.ReadBuildInfo()
			switch format {
			case "text":
				return printf(s, "%s\n", versionText(bi))
			case "json":
				return printf(s, "%s\n", versionJSON(bi))
			}
			return unknownFormat(format, []string{"text", "json"})
		},
	}
	c.Flags().StringVarP(&format, "format", "f", "text", "output format: text or json")
	return c
}
