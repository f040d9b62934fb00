package rules

import (
	"fmt"
	"strings"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// pilotageVersion checks the manifest's `pilotage` member (§11.1): it is
// `major.minor`, its major is the one this tool implements, and a later
// minor is announced, because it changes how values outside the closed
// sets are judged (reading 11).
var pilotageVersion = &lint.Rule{
	ID:       "pilotage-version",
	Category: lint.CatManifest,
	Section:  "11.1",
	Severity: report.Error,
	Summary:  "The manifest's `pilotage` member must be `major.minor` with major version 1.",
	Check: func(p *lint.Pass) {
		n := p.Manifest.Get("pilotage")
		if !n.Is(jsonpos.String) {
			return // missing or not a string: the schema rule reports it
		}
		ptr, v := p.ManifestPtr+"/pilotage", n.Str()
		fix := fmt.Sprintf("write \"pilotage\": %q", pilotage.Version)
		switch {
		case !p.VersionOK && strings.Count(v, ".") == 2 && hasPatch(v):
			p.Report(ptr, fmt.Sprintf("version %q carries a patch number, which never appears on the wire", report.Clip(v)),
				fix+": the manifest carries major.minor only")
		case !p.VersionOK:
			p.Report(ptr, fmt.Sprintf("version %q is not major.minor", report.Clip(v)),
				fix+": two decimal numbers without leading zeros, such as \"1.1\"")
		case p.Major > pilotage.Major:
			p.Report(ptr, fmt.Sprintf("version %q has major version %d; a client that implements Pilotage %d must not use this server",
				report.Clip(v), p.Major, pilotage.Major),
				fmt.Sprintf("a new major version is a breaking change; %s unless the server really speaks Pilotage %d", fix, p.Major))
		case p.Major < pilotage.Major:
			p.Report(ptr, fmt.Sprintf("version %q has major version %d, which no Pilotage specification defines", report.Clip(v), p.Major), fix)
		case p.Minor > 1:
			p.ReportAs(report.Info, ptr, false,
				fmt.Sprintf("version %q is a later minor version than %s, which this tool implements: values outside the %s closed sets are reported as warnings, not errors",
					report.Clip(v), pilotage.Version, pilotage.Version),
				"minor versions only add optional fields, sub-features and values; nothing to fix if the server implements "+v)
		}
	},
}

// hasPatch reports whether v is major.minor.patch with three valid
// numbers, such as "1.1.0".
func hasPatch(v string) bool {
	i := strings.LastIndexByte(v, '.')
	_, _, ok := lint.ParseVersion(v[:i])
	_, _, okPatch := lint.ParseVersion("0." + v[i+1:])
	return ok && okPatch
}

func init() { register(pilotageVersion) }
