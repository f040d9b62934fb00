package pilotage

import "encoding/json"

// Manifest is the Server's Pilotage self-description (§5.1).
type Manifest struct {
	Pilotage     string          `json:"pilotage"`
	Server       *ServerInfo     `json:"server,omitempty"`
	Capabilities Capabilities    `json:"capabilities,omitempty"`
	Languages    []LanguageEntry `json:"languages"`
}

// ServerInfo is the informative `server` member of a manifest.
type ServerInfo struct {
	Name    string `json:"name,omitempty"`
	Version string `json:"version,omitempty"`
}

// LanguageEntry is one item of `languages` (§5.1).
type LanguageEntry struct {
	ID                 string          `json:"id"`
	Title              string          `json:"title,omitempty"`
	Description        string          `json:"description,omitempty"`
	Capabilities       Capabilities    `json:"capabilities,omitempty"`
	Guides             string          `json:"guides"`
	Catalog            string          `json:"catalog,omitempty"`
	Loop               Loop            `json:"loop"`
	Locator            string          `json:"locator"`
	ContextSchema      json.RawMessage `json:"context_schema,omitempty"`
	ExecutionMode      string          `json:"execution_mode,omitempty"`
	TraceLevel         string          `json:"trace_level,omitempty"`
	Retention          string          `json:"retention,omitempty"`
	TraceSubprogram    string          `json:"trace_subprogram,omitempty"`
	PromotionAuthority string          `json:"promotion_authority,omitempty"`
}

// Loop holds the operation addresses of the validate/execute/trace loop.
type Loop struct {
	Validate string `json:"validate"`
	Execute  string `json:"execute,omitempty"`
	Trace    string `json:"trace,omitempty"`
}

// EffectiveCapabilities returns the effective capability map of l under
// the manifest's Server-level default (§4.2).
func (m *Manifest) EffectiveCapabilities(l *LanguageEntry) Capabilities {
	return Effective(m.Capabilities, l.Capabilities)
}

// Locator dialects (§5.5).
const (
	LocatorJSONPointer = "json-pointer"
	LocatorTextRange   = "text-range"
)

// Execution modes (§6.5.7).
const (
	ModeImmediate = "immediate"
	ModeDeploy    = "deploy"
	ModeBoth      = "both"
	ModeTestRun   = "test_run" // a trace `mode` only
)

// Trace levels (§5.8.1). LevelNone is a request value only.
const (
	LevelNone    = "none"
	LevelSummary = "summary"
	LevelFull    = "full"
)

// Retention keywords (§6.6); any other valid value is an ISO 8601 duration.
const (
	RetentionNone    = "none"
	RetentionSession = "session"
)

// trace_subprogram values (§5.8.3).
const (
	SubprogramOpaque   = "opaque"
	SubprogramExpanded = "expanded"
)

// promotion_authority values (§10.4).
const (
	AuthorityCaller   = "caller"
	AuthorityPromoter = "promoter"
)

// Closed sets of manifest fields, in the order data-model.md lists them.
var (
	Locators             = []string{LocatorJSONPointer, LocatorTextRange}
	ExecutionModes       = []string{ModeImmediate, ModeDeploy, ModeBoth}
	TraceLevels          = []string{LevelSummary, LevelFull}
	TraceSubprograms     = []string{SubprogramOpaque, SubprogramExpanded}
	PromotionAuthorities = []string{AuthorityCaller, AuthorityPromoter}
	GuideLevels          = []string{GuideCore, GuideReference, GuideExample}
)

// Snapshot is the project's one-file capture of everything a Server
// publishes (data-model.md, "the snapshot file").
type Snapshot struct {
	Snapshot string                     `json:"snapshot"`
	Manifest Manifest                   `json:"manifest"`
	Guides   map[string][]Guide         `json:"guides"`
	Catalog  map[string]CatalogSnapshot `json:"catalog,omitempty"`
}

// SnapshotFormat is the value of a snapshot file's `snapshot` member.
const SnapshotFormat = "pilotage/1.1"

// CatalogSnapshot is one Language's catalog inside a snapshot.
type CatalogSnapshot struct {
	CatalogVersion string         `json:"catalog_version"`
	Items          []CatalogEntry `json:"items"`
}
