package cmd

import (
	"errors"
	"io"
	"io/fs"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/pilotage-dev/pilotage/internal/base/fserr"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/base/suppress"
	"github.com/pilotage-dev/pilotage/internal/config"
	"github.com/pilotage-dev/pilotage/workbench/conform"
	"github.com/pilotage-dev/pilotage/workbench/pdl"
)

// configFlag is the root's --config, read by every verb that takes
// settings from pilotage.yaml.
const configFlag = "config"

func newConfigCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "config",
		Short: "Show the effective pilotage.yaml configuration, or its JSON Schema",
		Long: `pilotage.yaml records, in the repository, which rules apply where, at what
severity, which paths no verb reads, suppressions for JSON files (with a
reason each), the default --format, --strict and --baseline, and the
Language of program files. Every verb looks for it in the working directory
and then in each parent; --config FILE names it instead. docs/config.md
describes every key and which setting wins when several apply.

Exit status: 0 printed, 2 a configuration file with errors or a usage
error.`,
		Example: `  pilotage config show
  pilotage config schema > pilotage.schema.json`,
		Args: needArgs(0, 0, "a subcommand: show or schema"),
		RunE: func(c *cobra.Command, _ []string) error { return c.Help() },
	}
	var format string
	show := &cobra.Command{
		Use:   "show",
		Short: "Print the effective configuration and where each value came from",
		Long: `Print the configuration the verbs run with: the file in use (or none), the
defaults of --format, --strict and --baseline, the severity of every rule,
then overrides, ignored paths, suppressions and Languages, each value with
where it came from: FILE:LINE:COL of pilotage.yaml, or default. A flag given
to a verb wins over both.

Exit status: 0 shown, 2 a configuration file with errors (each printed at
its file:line:col).`,
		Example: `  pilotage config show
  pilotage config show --config ci/pilotage.yaml --format json`,
		Args: needArgs(0, 0, "no arguments"),
		RunE: func(c *cobra.Command, _ []string) error {
			if format != "text" && format != "json" {
				return usageErr("config show prints text or json, not %q%s", report.Clip(format), didYouMean(format, []string{"text", "json"}))
			}
			cfg, found, err := loadConfig(c.Flags())
			if err != nil {
				return err
			}
			e := cfg.Effective(allRules(), found)
			return writeOutput(streams(c), "", "the configuration", func(w io.Writer) error {
				if format == "json" {
					return e.WriteJSON(w)
				}
				return e.WriteText(w)
			})
		},
	}
	show.Flags().StringVarP(&format, "format", "f", "text", "output format: text or json")
	schema := &cobra.Command{
		Use:   "schema",
		Short: "Print the JSON Schema of pilotage.yaml",
		Long: `Print the JSON Schema (draft 2020-12) pilotage.yaml is checked against, for
editors that complete and check YAML by schema: save it and start
pilotage.yaml with # yaml-language-server: $schema=pilotage.schema.json.

Exit status: 0 printed, 2 output that cannot be written.`,
		Example: `  pilotage config schema > pilotage.schema.json`,
		Args:    needArgs(0, 0, "no arguments"),
		RunE: func(c *cobra.Command, _ []string) error {
			return writeOutput(streams(c), "", "the schema", func(w io.Writer) error {
				_, err := w.Write(config.Schema())
				return err
			})
		},
	}
	c.AddCommand(show, schema)
	return c
}

// loadConfig reads the configuration a verb runs with: --config, else
// pilotage.yaml from the working directory upwards, else none. found
// says it was looked for and found. Errors in it, unknown rule IDs
// included, are usage errors.
func loadConfig(flags *pflag.FlagSet) (cfg *config.Config, found bool, err error) {
	explicit, _ := flags.GetString(configFlag)
	cfg, err = config.Resolve(explicit, ".", ruleIDs()...)
	var pe *fs.PathError
	if explicit != "" && errors.As(err, &pe) {
		// The file the flag names cannot be opened: say which flag named it.
		return nil, false, usageErr("--%s %v", configFlag, fserr.Plain(err))
	}
	var ds config.Diagnostics
	if errors.As(err, &ds) {
		return nil, false, &exitError{Code: ExitUsage, Err: ds}
	}
	if err != nil {
		return nil, false, usageErr("%v", fserr.Plain(err))
	}
	return cfg, explicit == "" && cfg.File != "", nil
}

// configFiles are the files loadConfig may read, as the user would name
// them: the one --config names, else pilotage.yaml in the working
// directory and each of its parents. serve --watch watches them, so an
// edit of the configuration alone reloads too.
func configFiles(flags *pflag.FlagSet) []string {
	if explicit, _ := flags.GetString(configFlag); explicit != "" {
		return []string{explicit}
	}
	names, err := config.Candidates(".")
	if err != nil {
		return nil
	}
	for i, name := range names {
		names[i] = config.Shown(name)
	}
	return names
}

// allRules describes every rule pilotage.yaml may name: lint's, the PDL
// compiler's, replay's, conform's and the suppressions' own.
func allRules() []report.RuleInfo {
	out := append(conform.AllRules(), pdl.Rules...)
	return append(out, suppress.Rules()...)
}

func ruleIDs() []string {
	rs := allRules()
	ids := make([]string, len(rs))
	for i, r := range rs {
		ids[i] = r.ID
	}
	return ids
}
