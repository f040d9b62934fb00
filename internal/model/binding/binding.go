// Package binding fixes the names of the project's MCP binding
// (shared/spec/binding.md) in one place: the extension identifier, the
// discovery tool, the manifest resource and the rule that turns a Language
// id into tool names. Part III of Pilotage is not available; when it
// appears, this is the only file whose names change.
package binding

import (
	"net/url"
	"strings"

	pilotage "github.com/pilotage-dev/pilotage"
)

// ExtensionID is the key of the extension in the MCP initialize result's
// capabilities.extensions (SEP-2133).
const ExtensionID = "dev.pilotage/pilotage"

// DiscoverTool is the MCP tool that returns the manifest (§6.1).
const DiscoverTool = "pilotage_discover"

// ManifestURI is the MCP resource that also holds the manifest.
const ManifestURI = "pilotage://manifest"

// JSONMediaType is the MIME type of the manifest resource.
const JSONMediaType = "application/json"

// ExtensionSettings is the value declared under ExtensionID: the extension
// version (§11.1) and the discovery tool's name.
func ExtensionSettings() map[string]any {
	return map[string]any{"version": pilotage.Version, "discover": DiscoverTool}
}

// Op names one of the per-Language operations that get a tool.
type Op string

// The per-Language operations (§6.2–§6.6), in the order of the loop.
const (
	Learn    Op = "learn"
	Lookup   Op = "lookup"
	Validate Op = "validate"
	Execute  Op = "execute"
	Trace    Op = "trace"
)

// Ops lists the per-Language operations in loop order.
var Ops = []Op{Learn, Lookup, Validate, Execute, Trace}

// Prefix is a Language's tool prefix: its id with every character outside
// [A-Za-z0-9_-] replaced by '_' ("workflow/v1" → "workflow_v1").
func Prefix(languageID string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') {
			return r
		}
		return '_'
	}, languageID)
}

// Tool is the name of the tool that carries op for a Language: the operation
// address the manifest publishes (data-model.md §5.1).
func Tool(languageID string, op Op) string { return Prefix(languageID) + "_" + string(op) }

// MaxTool is the longest tool name, in bytes, an MCP server built on
// go-sdk registers: its validateToolName (go-sdk v1.8.0, mcp/tool.go)
// refuses a longer one, so AddTool logs an error and the tool is missing,
// following the MCP specification's tool names of 1 to 128 characters.
const MaxTool = 128

// LongestTool is the longest of the tool names Tool derives for a
// Language: the one MaxTool bounds.
func LongestTool(languageID string) string {
	longest := Ops[0]
	for _, op := range Ops[1:] {
		if len(op) > len(longest) {
			longest = op
		}
	}
	return Tool(languageID, longest)
}

// GuideURI is the MCP resource that holds one guide's body. Both ids are
// path-escaped, so a Language id's '/' cannot be confused with the separator.
func GuideURI(languageID, guideID string) string {
	return "pilotage://guides/" + url.PathEscape(languageID) + "/" + url.PathEscape(guideID)
}
