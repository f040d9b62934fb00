package pilotage

import "encoding/json"

// Outcome is the closed classification of a Run's or step's result (§5.7).
type Outcome struct {
	OK     bool   `json:"ok"`
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
}

// Reserved run statuses (§5.7).
const (
	StatusSuccess         = "success"
	StatusPartial         = "partial"
	StatusValidationError = "validation_error"
	StatusCatalogDrift    = "catalog_drift"
	StatusPromotionDrift  = "promotion_drift"
)

// StatusSpec is one row of a run- or step-status table.
type StatusSpec struct {
	Status      string
	OK          bool
	SideEffects bool // "possible" when true, "none" when false
	Meaning     string
	Refused     bool // a refused Run's status (§3.6)
}

// ReservedRunStatuses are the five reserved statuses with their fixed
// columns (closed-sets-format.md).
var ReservedRunStatuses = []StatusSpec{
	{Status: StatusSuccess, OK: true, Meaning: "The Run completed."},
	{Status: StatusPartial, SideEffects: true, Meaning: "The Run started and did not complete; side effects may have occurred."},
	{Status: StatusValidationError, Refused: true, Meaning: "The program, input or context did not validate; nothing ran."},
	{Status: StatusCatalogDrift, Refused: true, Meaning: "expected_catalog_version differs from the current catalog_version; nothing ran."},
	{Status: StatusPromotionDrift, Refused: true, Meaning: "A promoted program's recorded baseline no longer matches the catalog; nothing ran."},
}

// ReservedStepStatuses are the reserved statuses a step can take
// (reading 10 of data-model.md).
var ReservedStepStatuses = []StatusSpec{ReservedRunStatuses[0], ReservedRunStatuses[1]}

// IsRefusal reports whether status marks a refused Run (§3.6).
func IsRefusal(status string) bool {
	return status == StatusValidationError || status == StatusCatalogDrift || status == StatusPromotionDrift
}

// Trace is the Server's recorded account of a Run (§5.8).
type Trace struct {
	RunID          string          `json:"run_id"`
	Level          string          `json:"level"`
	Outcome        Outcome         `json:"outcome"`
	Steps          []TraceStep     `json:"steps"`
	Mode           string          `json:"mode,omitempty"`
	CatalogVersion string          `json:"catalog_version,omitempty"`
	Stats          json.RawMessage `json:"stats,omitempty"`
}

// TraceStep is one entry of a trace's flat execution log (§5.8).
type TraceStep struct {
	ID        string          `json:"id"`
	Kind      string          `json:"kind,omitempty"`
	Calls     []string        `json:"calls,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	Output    json.RawMessage `json:"output,omitempty"`
	Outcome   Outcome         `json:"outcome"`
	TMs       *float64        `json:"t_ms,omitempty"`
	Decisions []Decision      `json:"decisions,omitempty"`
}

// Decision records one branch or loop decision (§5.8).
type Decision struct {
	At      string `json:"at"`
	Took    string `json:"took"`
	Because string `json:"because,omitempty"`
}
