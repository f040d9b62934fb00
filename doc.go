// Package pilotage holds the nouns of Pilotage 1.1 Part II as Go types with
// their exact wire names (see ../shared/spec/data-model.md), the embedded JSON
// Schemas for each structure, and the small pieces of the spec's arithmetic
// that every other package needs: effective capability maps (§4.2), risk
// aggregation (§5.3), Language identifiers (§3.3), trace step identifiers
// (§5.8.2) and retention durations (§6.6).
//
// The types are plain data: they carry no behaviour beyond JSON encoding, so
// lint, replay, the workbench engine and the MCP server all agree on one
// representation of the wire.
package pilotage

// Version is the Pilotage extension version this module implements (§11.1).
const Version = "1.1"

// Major is the major component of Version.
const Major = 1
