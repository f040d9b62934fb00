package pilotage

// Guide is one teaching unit of a Language (§5.2). Body is present only in
// the fetch form and in snapshot files.
type Guide struct {
	ID          string   `json:"id"`
	Title       string   `json:"title"`
	Level       string   `json:"level"`
	Version     string   `json:"version"`
	SizeBytes   int      `json:"size_bytes"`
	Topics      []string `json:"topics,omitempty"`
	MediaType   string   `json:"media_type,omitempty"`
	Description string   `json:"description,omitempty"`
	Body        *string  `json:"body,omitempty"`
}

// Guide levels (§5.2).
const (
	GuideCore      = "core"
	GuideReference = "reference"
	GuideExample   = "example"
)

// TopicClosedSets is the reserved topic of the closed-sets guide (§5.2).
const TopicClosedSets = "closed-sets"

// CoreGuideMaxBytes is the SHOULD bound on a core guide's size (§5.2).
const CoreGuideMaxBytes = 8192

// Index returns the guide without its body: the index form of learn (§6.2).
func (g Guide) Index() Guide {
	g.Body = nil
	return g
}
