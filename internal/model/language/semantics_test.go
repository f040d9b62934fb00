package language

import (
	"strings"
	"testing"

	pilotage "github.com/pilotage-dev/pilotage"
)

// Every grammar gets a Scope rules section (§5.2): a snapshot does not show
// the grammar (data-model.md reading 14), so a section present only for
// branches and loops left lint and conform unable to tell its absence from
// an omission. Each says what an expression may read in that grammar, and
// nothing about constructs or variables the grammar does not have.
func TestScopeRules(t *testing.T) {
	shared := []string{"Expressions are CEL.", "addressable everywhere", "CEL does not mix int and double"}
	checkSections(t, []section{
		{"every construct", ScopeRules(&everyConstruct),
			append(shared, "`steps.<id>.output`", "in every enclosing sequence", "inside a branch arm or a loop body", "After a loop",
				"`input` (the execute request's input)", "an inline program's `input`", "an argument's schema"), nil},
		{"branches only", ScopeRules(&Grammar{Call: "call", Branch: "if", Arms: []string{"then", "else"}, Input: true}),
			append(shared, "After a branch"), nil},
		{"calls without input", ScopeRules(&callsOnly),
			append(shared, "`steps.<id>.output`", "no branches or loops", "never a later step", "`output` expression can address every step",
				"bound only as the Parameter binding section says", "an entry's input_schema", "an argument's schema"),
			[]string{"branch arm", "loop body", "enclosing", "`input` (the execute request's input)", "inline program's `input`"}},
		{"promoted runs only", ScopeRules(&runsOnly),
			append(shared, "`steps.<id>.output`", "no branches or loops"), []string{"branch arm"}},
		{"no steps (calc)", ScopeRules(&noSteps),
			append(shared, "no step constructs", "`steps` is always empty", "`input` (the execute request's input)"),
			[]string{"`steps.<id>.output`", "branch", "loop", "entry", "argument"}},
	})
	if ScopeRules(&everyConstruct) != ScopeRulesText {
		t.Error("ScopeRulesText is the section of a grammar with every construct")
	}
}

// The grammar shapes the section tests share: every construct, flat calls,
// promoted runs only, and none (calc).
var (
	everyConstruct = Grammar{Call: "call", Args: "with", Branch: "if", Arms: []string{"then", "else"}, Loop: "for_each", Item: "as", Body: "do",
		Run: "run", RunArgs: "with", Input: true}
	callsOnly = Grammar{Call: "call", Args: "with"}
	runsOnly  = Grammar{Run: "run", RunArgs: "with", Input: true}
	noSteps   = Grammar{Input: true}
)

// section is one case of a fixed prose section: what it must say and what
// it must not, since the grammar or capabilities lack it.
type section struct {
	name        string
	got         string
	want, wantN []string
}

func checkSections(t *testing.T, cases []section) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if strings.TrimSpace(tc.got) == "" {
				t.Fatal("empty section: §5.2 and lint's closed-sets-sections need prose under every heading written")
			}
			for _, s := range tc.want {
				if !strings.Contains(tc.got, s) {
					t.Errorf("missing %q in:\n%s", s, tc.got)
				}
			}
			for _, s := range tc.wantN {
				if strings.Contains(tc.got, s) {
					t.Errorf("mentions %q, which the Language does not have:\n%s", s, tc.got)
				}
			}
		})
	}
}

// Parameter binding (§5.2, §6.5.5) speaks of inline input, promoted
// programs and call arguments only where the Language has them: calc's
// section once described calls and promoted programs it cannot have.
func TestParameterBinding(t *testing.T) {
	checkSections(t, []section{
		{"every construct, promoted programs", ParameterBinding(&everyConstruct, true),
			[]string{"as the CEL variable `input`", "A promoted program's `input` must validate", "A call's arguments"}, []string{"takes no input"}},
		{"calls without input", ParameterBinding(&callsOnly, false),
			[]string{"takes no input", "validation_error Run with an input_binding diagnostic", "A call's arguments"},
			[]string{"as the CEL variable", "promoted"}},
		{"promoted runs only", ParameterBinding(&runsOnly, true),
			[]string{"as the CEL variable `input`", "A promoted program's", "arguments"}, nil},
		{"no steps (calc)", ParameterBinding(&noSteps, false),
			[]string{"as the CEL variable `input`", "empty object"}, []string{"promoted", "call", "catalog", "argument"}},
	})
}

// Step identifiers (§3.4, §5.2): the native ids of a grammar with steps;
// a stepless grammar says it has none instead of describing ids.
func TestStepIdentifiers(t *testing.T) {
	checkSections(t, []section{
		{"every construct", StepIdentifiers(&everyConstruct), []string{"native identifier, its `id` member", "§5.8.2"}, nil},
		{"calls only", StepIdentifiers(&callsOnly), []string{"native identifier"}, nil},
		{"branches only", StepIdentifiers(&Grammar{Branch: "if", Arms: []string{"then", "else"}}), []string{"native identifier"}, nil},
		{"no steps (calc)", StepIdentifiers(&noSteps), []string{"no step constructs", "no step identifiers"}, []string{"`id` member", "base identifier"}},
	})
	if StepIdentifiers(&callsOnly) != StepIdentifiersText {
		t.Error("a grammar with steps gets the fixed text")
	}
}

// Summary truncation (§5.8.1): the engine's form where steps exist, kept
// word for word since replay recognizes the engine's truncation by it;
// nothing to truncate where programs have no steps.
func TestTruncation(t *testing.T) {
	checkSections(t, []section{
		{"calls only", Truncation(&callsOnly), []string{"1024 bytes", "first 256 characters"}, nil},
		{"no steps (calc)", Truncation(&noSteps), []string{"no steps", "nothing is truncated"}, []string{"1024", "preview"}},
	})
	for _, g := range []*Grammar{&everyConstruct, &callsOnly, &runsOnly} {
		if Truncation(g) != TruncationText {
			t.Errorf("%+v: a grammar with steps gets the text replay recognizes", *g)
		}
	}
}

// Output (§6.5): one sentence per kind of Run the Language has; an
// immediate Language does not describe deploy Runs, a deploy one without
// test_run has no Run that evaluates the output expression.
func TestOutput(t *testing.T) {
	checkSections(t, []section{
		{"immediate (homeflow)", Output(&everyConstruct, "immediate", false),
			[]string{"For an immediate Run, `output`", "after the last step"}, []string{"deploy", "test run"}},
		{"deploy with test runs (deploy)", Output(&everyConstruct, "deploy", true),
			[]string{"For a test run, `output`", "For a deploy Run, `output` is the installation result"}, []string{"immediate"}},
		{"deploy only", Output(&callsOnly, "deploy", false),
			[]string{"For a deploy Run"}, []string{"immediate", "test run", "output` expression"}},
		{"both with test runs", Output(&everyConstruct, "both", true),
			[]string{"For an immediate Run or a test run", "For a deploy Run"}, nil},
		{"no steps (calc)", Output(&noSteps, "immediate", false),
			[]string{"For an immediate Run", "evaluated once, as the program has no steps"}, []string{"last step", "deploy", "test run"}},
	})
}

// The paths paragraph after the Diagnostic codes table (§5.5) shows a
// pointer a program of the grammar can have: deploy names its call member
// `do`, and calc's programs have no steps to point into.
func TestDiagnosticPaths(t *testing.T) {
	jp := pilotage.LocatorJSONPointer
	checkSections(t, []section{
		{"call member call", DiagnosticPaths(jp, &everyConstruct), []string{"locator `json-pointer`", "such as `/steps/0/call`"}, nil},
		{"call member do (deploy)", DiagnosticPaths(jp, &Grammar{Call: "do", Args: "args"}), []string{"such as `/steps/0/do`"}, []string{"/call"}},
		{"promoted runs only", DiagnosticPaths(jp, &runsOnly), []string{"such as `/steps/0/id`"}, []string{"/call"}},
		{"no steps (calc)", DiagnosticPaths(jp, &noSteps), []string{"such as `/output`"}, []string{"/steps"}},
		{"text-range (notes)", DiagnosticPaths(pilotage.LocatorTextRange, &everyConstruct), []string{"locator `text-range`", "1-based"}, []string{"JSON Pointer into the program"}},
	})
	if DiagnosticPaths("xpath", &everyConstruct) != "" {
		t.Error("an unknown locator has no paragraph")
	}
}
