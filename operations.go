package pilotage

import "encoding/json"

// LearnRequest is the learn operation (§6.2): empty for the index form.
// The members are nil when left out: a supplied id, "" too, fetches that
// guide, and a supplied topic, "" too, is a topic fetch.
type LearnRequest struct {
	ID    *string `json:"id,omitempty"`
	Topic *string `json:"topic,omitempty"`
}

// LearnIndex answers the index form of learn.
type LearnIndex struct {
	Guides []Guide `json:"guides"`
}

// LearnFetch answers the fetch form of learn.
type LearnFetch struct {
	Guide Guide `json:"guide"`
}

// ValidateRequest is the validate operation (§6.4).
type ValidateRequest struct {
	Program json.RawMessage `json:"program"`
	Context json.RawMessage `json:"context,omitempty"`
}

// ValidateResponse answers validate (§6.4). Diagnostics is always present.
type ValidateResponse struct {
	Valid          bool         `json:"valid"`
	Diagnostics    []Diagnostic `json:"diagnostics"`
	CatalogVersion string       `json:"catalog_version,omitempty"`
	Plan           *Plan        `json:"plan,omitempty"`
	References     []string     `json:"references,omitempty"`
}

// ExecuteRequest is the execute operation (§6.5) with the binding's `mode`
// selector for execution_mode "both". The members whose presence decides
// something are pointers, nil when left out: a supplied program_ref is a
// runnable (§6.5.1), a supplied expected_catalog_version a token to compare
// (§6.5.3), a supplied idempotency_key a key (§6.5.6) and a supplied
// trace_level or mode a value to recognize (§6.5.2), each even when it is
// the empty string.
type ExecuteRequest struct {
	Program                json.RawMessage `json:"program,omitempty"`
	ProgramRef             *string         `json:"program_ref,omitempty"`
	Input                  json.RawMessage `json:"input,omitempty"`
	Context                json.RawMessage `json:"context,omitempty"`
	TraceLevel             *string         `json:"trace_level,omitempty"`
	Store                  *bool           `json:"store,omitempty"`
	ExpectedCatalogVersion *string         `json:"expected_catalog_version,omitempty"`
	IdempotencyKey         *string         `json:"idempotency_key,omitempty"`
	TestRun                *bool           `json:"test_run,omitempty"`
	Mode                   *string         `json:"mode,omitempty"`
}

// ExecuteResponse answers execute (§6.5).
type ExecuteResponse struct {
	RunID          string          `json:"run_id"`
	Outcome        Outcome         `json:"outcome"`
	Output         json.RawMessage `json:"output,omitempty"`
	Trace          *Trace          `json:"trace,omitempty"`
	Diagnostics    []Diagnostic    `json:"diagnostics,omitempty"`
	CatalogVersion string          `json:"catalog_version,omitempty"`
}

// TraceFetchRequest is the trace operation's fetch door (§6.6).
// TraceLevel is nil when left out; a supplied "" is a level to recognize.
type TraceFetchRequest struct {
	RunID      string  `json:"run_id"`
	TraceLevel *string `json:"trace_level,omitempty"`
	Question   string  `json:"question,omitempty"`
}

// TraceFetchResponse answers a trace fetch (§6.6).
type TraceFetchResponse struct {
	RunID     string          `json:"run_id"`
	Outcome   Outcome         `json:"outcome"`
	Output    json.RawMessage `json:"output,omitempty"`
	Trace     *Trace          `json:"trace"`
	Narration string          `json:"narration,omitempty"`
}

// RequestError is the request-error channel's object (§8, data-model.md):
// `{"error": {...}}` on the wire.
type RequestError struct {
	Kind           string `json:"kind"`
	Message        string `json:"message"`
	CatalogVersion string `json:"catalog_version,omitempty"`
}

// Error implements error.
func (e *RequestError) Error() string { return e.Kind + ": " + e.Message }

// RequestErrorEnvelope is the wire form `{"error": {...}}`.
type RequestErrorEnvelope struct {
	Error RequestError `json:"error"`
}

// Request error kinds (data-model.md §8), a closed set.
const (
	ErrInvalidRequest  = "invalid_request"
	ErrNotFound        = "not_found"
	ErrUnsupported     = "unsupported"
	ErrConflict        = "conflict"
	ErrUnknownBaseline = "unknown_baseline"
	ErrResourceLimit   = "resource_limit"
	ErrInternal        = "internal"
)

// LookupRequest is the lookup operation's argument object (binding.md):
// `verb` selects list, get or changed_since; the other members belong to
// the selected verb. The pointers are nil when left out: a supplied
// cursor "" is no cursor a listing returned, a supplied limit 0 asks for a
// page of nothing, a supplied id "" names no entry, a supplied
// catalog_version "" is a token no baseline has, a supplied kind or tag ""
// filters by the empty kind or tag and a supplied q "" is a search (§6.3),
// where leaving them out asks for the first page, the default page size,
// nothing to look up or compare against, or no filter.
type LookupRequest struct {
	Verb           string  `json:"verb"`
	Kind           *string `json:"kind,omitempty"`
	Tag            *string `json:"tag,omitempty"`
	Q              *string `json:"q,omitempty"`
	Cursor         *string `json:"cursor,omitempty"`
	Limit          *int    `json:"limit,omitempty"`
	ID             *string `json:"id,omitempty"`
	CatalogVersion *string `json:"catalog_version,omitempty"`
}

// Lookup verbs (§6.3).
const (
	VerbList         = "list"
	VerbGet          = "get"
	VerbChangedSince = "changed_since"
)
