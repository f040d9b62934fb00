package pilotage

// Plan is the statically derived preview of a valid program (§5.6).
type Plan struct {
	Steps          []PlanStep `json:"steps"`
	MaxRisk        string     `json:"max_risk"`
	MaxRiskHints   RiskHints  `json:"max_risk_hints"`
	Mode           string     `json:"mode,omitempty"`
	CatalogVersion string     `json:"catalog_version,omitempty"`
	Summary        string     `json:"summary,omitempty"`
}

// PlanStep is one step of a plan (§5.6, data-model.md).
type PlanStep struct {
	ID          string     `json:"id"`
	Kind        string     `json:"kind"`
	Calls       []string   `json:"calls,omitempty"`
	Risk        string     `json:"risk,omitempty"`
	RiskHints   *RiskHints `json:"risk_hints,omitempty"`
	Arm         *ArmRef    `json:"arm,omitempty"`
	Arms        []string   `json:"arms,omitempty"`
	Loop        string     `json:"loop,omitempty"`
	Description string     `json:"description,omitempty"`
}

// ArmRef places a plan step in an arm of a branch.
type ArmRef struct {
	Branch string `json:"branch"`
	Label  string `json:"label"`
}

// Step kinds of plans and traces (data-model.md), a closed set.
const (
	KindStep   = "step"
	KindBranch = "branch"
	KindLoop   = "loop"
)

// StepKinds lists the closed set of plan and trace step kinds.
var StepKinds = []string{KindStep, KindBranch, KindLoop}

// Loop decision values (§5.8).
const (
	DecisionContinue = "continue"
	DecisionExit     = "exit"
)
