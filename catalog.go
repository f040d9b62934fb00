package pilotage

import "encoding/json"

// CatalogEntry describes one environment-bound name (§5.4).
type CatalogEntry struct {
	ID           string          `json:"id"`
	Kind         string          `json:"kind"`
	Name         string          `json:"name,omitempty"`
	Description  string          `json:"description,omitempty"`
	Tags         []string        `json:"tags,omitempty"`
	Languages    []string        `json:"languages,omitempty"`
	InputSchema  json.RawMessage `json:"input_schema,omitempty"`
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
	Risk         string          `json:"risk"`
	RiskHints    RiskHints       `json:"risk_hints"`
	Revision     string          `json:"revision,omitempty"`
}

// Baseline is the load-bearing part of a catalog entry that promotion
// records (§5.4): never revision, name, description or tags.
type Baseline struct {
	Kind         string          `json:"kind"`
	InputSchema  json.RawMessage `json:"input_schema,omitempty"`
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
	Risk         string          `json:"risk"`
	RiskHints    RiskHints       `json:"risk_hints"`
	Languages    []string        `json:"languages,omitempty"`
}

// Baseline returns the entry's promotion baseline (§5.4).
func (e *CatalogEntry) Baseline() Baseline {
	return Baseline{Kind: e.Kind, InputSchema: e.InputSchema, OutputSchema: e.OutputSchema,
		Risk: e.Risk, RiskHints: e.RiskHints, Languages: e.Languages}
}

// ListRequest is the lookup `list` verb (§6.3, binding.md).
type ListRequest struct {
	Kind   string `json:"kind,omitempty"`
	Tag    string `json:"tag,omitempty"`
	Q      string `json:"q,omitempty"`
	Cursor string `json:"cursor,omitempty"`
	Limit  int    `json:"limit,omitempty"`
}

// ListResponse answers lookup `list` (§6.3).
type ListResponse struct {
	Items          []CatalogEntry `json:"items"`
	NextCursor     string         `json:"next_cursor,omitempty"`
	CatalogVersion string         `json:"catalog_version"`
}

// GetResponse answers lookup `get` (§6.3).
type GetResponse struct {
	Entry          CatalogEntry `json:"entry"`
	CatalogVersion string       `json:"catalog_version"`
}

// Change is one item of a changed_since response (§6.3).
type Change struct {
	ID     string `json:"id"`
	Change string `json:"change"`
}

// Change kinds (§6.3), a closed set.
const (
	ChangeAdded    = "added"
	ChangeRemoved  = "removed"
	ChangeModified = "modified"
)

// ChangedSinceResponse answers lookup `changed_since` (§6.3).
type ChangedSinceResponse struct {
	CatalogVersion string   `json:"catalog_version"`
	Changes        []Change `json:"changes"`
}
