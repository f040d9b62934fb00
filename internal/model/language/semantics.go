package language

import (
	"strings"

	pilotage "github.com/pilotage-dev/pilotage"
)

// The workbench engine runs every PDL Language with the same step model, so
// the prose sections of every closed-sets guide that describe that model
// are fixed here, next to the model, and the engine implements exactly
// what they say. The PDL compiler copies them into Sets; a Language may
// append to them but never contradict them.

// TruncateBytes is the size above which a summary trace truncates a step's
// `output` (the JSON text's length in bytes).
const TruncateBytes = 1024

// PreviewRunes is the length of the preview a truncated output keeps.
const PreviewRunes = 256

// ScopeRulesText is the Scope rules section (§5.2) of a grammar with every
// construct and input, homeflow's.
var ScopeRulesText = ScopeRules(&Grammar{Call: "call", Branch: "if", Arms: []string{"then", "else"}, Loop: "for_each", Run: "run", Input: true})

// The scope rules are written from these parts, so every grammar's
// section says the shared rules in the same words.
const (
	scopeSteps  = `Expressions are CEL. A step's result is addressed as ` + "`steps.<id>.output`" + `.` + "\n"
	scopeNested = `A step can address the steps before it in its own sequence and in every enclosing sequence, never a later step.
Steps inside a branch arm or a loop body are addressable only inside that arm or body, after they ran; they are never addressable outside it.
Inside a loop body the loop variable (the name given by the loop's item member) holds the current element, and ` + "`steps.<id>.output`" + ` of a body step is its value in the current iteration.
After a branch, ` + "`steps.<branch>.output`" + ` is the output of the last step of the arm that ran (null for an empty arm).
After a loop, ` + "`steps.<loop>.output`" + ` is a list with one element per iteration: the output of the body's last step (null for an empty body).` + "\n"
	scopeFlat       = `The grammar has no branches or loops, so a program's steps form one sequence: a step can address the steps before it, never a later step, and the program's ` + "`output`" + ` expression can address every step.` + "\n"
	scopeNone       = `Expressions are CEL. The grammar has no step constructs, so a program's ` + "`steps`" + ` is always empty and its one expression is ` + "`output`" + `.` + "\n"
	scopeEverywhere = "`input`" + ` (the execute request's input) and ` + "`context`" + ` (the validated context, when the Language declares context_schema) are addressable everywhere.` + "\n"
	scopeNoInput    = "`context`" + ` (the validated context, when the Language declares context_schema) is addressable everywhere; ` + "`input`" + ` is bound only as the Parameter binding section says.` + "\n"
	// The number rules name the schemas an expression meets: entries'
	// only where steps call entries, an inline input only where the
	// grammar takes one.
	scopeNumbersCalls   = `A JSON number takes its CEL type from the schema that describes it (an entry's input_schema or output_schema, the context_schema)`
	scopeNumbersNoCalls = `A JSON number takes its CEL type from the schema that describes it (the context_schema, or an input_schema the input is validated against)`
	scopeNumbersTyped   = `: where the schema says ` + "`\"type\": \"number\"`" + ` it is a double, so 10 is read as 10.0 and ` + "`input.price * 1.2`" + ` works; where it says ` + "`\"type\": \"integer\"`" + ` it is an int.` + "\n"
	scopeUntypedInput   = `A number no schema types (any field of an inline program's ` + "`input`" + `, a field whose schema has no single numeric type)`
	scopeUntyped        = `A number no schema types (a field whose schema has no single numeric type)`
	scopeUntypedRule    = ` is an int when its JSON text has no fraction or exponent, and a double otherwise.` + "\n" +
		`CEL does not mix int and double in arithmetic: write 2.0 instead of 2, or convert with double(x) or int(x).`
	scopeArgs = ` An int may be passed where an argument's schema says number.`
)

// ScopeRules is the closed-sets guide's Scope rules section for g. §5.2
// requires the section only of a grammar with branches or loops, but a
// manifest or snapshot does not show the grammar (data-model.md reading
// 14), so every Language states its scope rule: what an expression may
// read in its programs, and how numbers are typed, naming only the
// constructs and variables the grammar has.
func ScopeRules(g *Grammar) string {
	var b strings.Builder
	switch {
	case g.HasControlFlow():
		b.WriteString(scopeSteps + scopeNested)
	case g.HasSteps():
		b.WriteString(scopeSteps + scopeFlat)
	default:
		b.WriteString(scopeNone)
	}
	calls := g.Call != "" || g.Run != ""
	b.WriteString(pick(g.Input, scopeEverywhere, scopeNoInput))
	b.WriteString(pick(calls, scopeNumbersCalls, scopeNumbersNoCalls) + scopeNumbersTyped)
	b.WriteString(pick(g.Input, scopeUntypedInput, scopeUntyped) + scopeUntypedRule)
	b.WriteString(pick(calls, scopeArgs, ""))
	return b.String()
}

// pick is yes when on holds and no otherwise: the choice between two
// wordings of a sentence.
func pick(on bool, yes, no string) string {
	if on {
		return yes
	}
	return no
}

// ParameterBinding is the closed-sets guide's Parameter binding section
// (§5.2, §6.5.5) for g. promoted is true when the Language has promoted
// programs (a catalog kind marked promoted, or a deploy mode that installs
// them). §5.2 requires the section when inline programs accept input; the
// others state that they take none, for the reason ScopeRules gives. Each
// sentence is about a way input reaches a program that the Language has.
func ParameterBinding(g *Grammar, promoted bool) string {
	parts := []string{bindingNoInput}
	if g.Input {
		parts[0] = bindingInline
	}
	if promoted {
		parts = append(parts, bindingPromoted)
	}
	if g.Call != "" || g.Run != "" {
		parts = append(parts, bindingArgs)
	}
	return strings.Join(parts, "\n")
}

// The sentences ParameterBinding is written from.
const (
	bindingInline   = `An inline program receives the execute request's ` + "`input`" + ` as the CEL variable ` + "`input`" + `; it must be a JSON object, or absent (then ` + "`input`" + ` is an empty object).`
	bindingNoInput  = `An inline program takes no input: its expressions have no ` + "`input`" + ` variable, and an execute request that sends ` + "`input`" + ` with an inline program is a validation_error Run with an input_binding diagnostic.`
	bindingPromoted = `A promoted program's ` + "`input`" + ` must validate against its catalog entry's input_schema; a violation is a validation_error Run with an input_binding diagnostic whose path points into input.`
	bindingArgs     = `A call's arguments are an object whose member values are CEL expressions; their values are the entry's input.`
)

// StepIdentifiersText describes step identity for grammars with native ids.
const StepIdentifiersText = `Every step has a native identifier, its ` + "`id`" + ` member: unique within the program, non-empty, and free of ` + "`#`" + ` and ` + "`/`" + ` (§3.4). Trace entries use it as the base identifier (§5.8.2).`

// stepIdentifiersNone is the Step identifiers section of a grammar
// without steps: there is nothing to identify.
const stepIdentifiersNone = `The grammar has no step constructs, so a program has no steps and its traces no step entries: there are no step identifiers (§3.4, §5.8.2).`

// StepIdentifiers is the closed-sets guide's Step identifiers section for
// g. §5.2 requires it only of a grammar without native step ids, which no
// PDL grammar is, but a snapshot does not show that (data-model.md reading
// 14), so every Language states how its steps are identified, or that it
// has none.
func StepIdentifiers(g *Grammar) string {
	if !g.HasSteps() {
		return stepIdentifiersNone
	}
	return StepIdentifiersText
}

// TruncationText describes how summary traces truncate output (§5.8.1).
// replay recognizes the engine's truncation by this text.
const TruncationText = "At level `summary` a step's `output` whose JSON text is longer than 1024 bytes is replaced by " +
	"`{\"truncated\": true, \"bytes\": N, \"preview\": \"…\"}`: N is the length of the full JSON text in bytes and preview holds its first 256 characters. " +
	"Shorter outputs appear whole. Step `input` is never present at `summary`."

// truncationNone is the Summary truncation section of a grammar without
// steps: only step outputs are ever truncated, and there are none.
const truncationNone = "A summary trace truncates only step outputs, and a program of this grammar has no steps: its traces have no step entries at any level, so nothing is truncated."

// Truncation is the closed-sets guide's Summary truncation section for g
// (§5.8.1), which §5.2 requires whenever execute is declared: the engine's
// form where programs have steps, and that nothing is truncated where
// they have none.
func Truncation(g *Grammar) string {
	if !g.HasSteps() {
		return truncationNone
	}
	return TruncationText
}

// Output is the closed-sets guide's Output section (§6.5): what the
// run-level output means in each kind of Run the Language has. mode is its
// execution_mode; testRun is true when it declares execute's test_run.
func Output(g *Grammar, mode string, testRun bool) string {
	evaluated := "evaluated after the last step"
	if !g.HasSteps() {
		evaluated = "evaluated once, as the program has no steps"
	}
	var runs []string
	if mode == pilotage.ModeImmediate || mode == pilotage.ModeBoth {
		runs = append(runs, "an immediate Run")
	}
	if testRun {
		runs = append(runs, "a test run")
	}
	var parts []string
	if len(runs) > 0 {
		parts = append(parts, "For "+strings.Join(runs, " or ")+", `output` is the value of the program's top-level `output` expression, "+evaluated+"; "+
			"it is absent when the program has no `output` member or the Run did not succeed.")
	}
	if mode == pilotage.ModeDeploy || mode == pilotage.ModeBoth {
		parts = append(parts, "For a deploy Run, `output` is the installation result `{\"program_ref\": \"…\"}`: the catalog id of the installed program.")
	}
	return strings.Join(parts, " ")
}

// DiagnosticPaths says how a diagnostic's path locates it under locator
// (§5.5); the closed-sets guide states the Language's one after its
// Diagnostic codes table. A text-range Language's program is the same JSON
// step model, sent as a string: positions count in that text. The example
// pointer is one a program of g can have: deploy's call member is `do`,
// and calc's programs have no steps. "" for an unknown locator.
func DiagnosticPaths(locator string, g *Grammar) string {
	switch locator {
	case pilotage.LocatorJSONPointer:
		return "Programs are JSON values (locator `json-pointer`, §5.5). A diagnostic's `path` is a JSON Pointer into the program, such as `" + examplePointer(g) + "`; `\"\"` is the whole program. " +
			"When the finding is inside an expression, `range` gives its start and end in that string as 0-based, end-exclusive code-point offsets. " +
			"An `input_binding` or `context_binding` diagnostic's `path` is a JSON Pointer into the input or the context instead."
	case pilotage.LocatorTextRange:
		return "Programs are text (locator `text-range`, §5.5): send the program as one JSON string holding the program text, written as the examples write it. " +
			"A diagnostic's `path` is `{\"start\": {\"line\": L, \"column\": C}, \"end\": {\"line\": L, \"column\": C}}` in that text: lines and columns are 1-based, columns count characters, and `end` is the position just after the last character of the finding. " +
			"Text that is not JSON gets a `syntax` diagnostic at the character where reading stopped (an empty range at the end when the text ends early); a finding about the whole program spans all of it. `range` is never used. " +
			"An `input_binding` or `context_binding` diagnostic's `path` is a JSON Pointer into the input or the context."
	}
	return ""
}

// examplePointer is a JSON Pointer a program of g can have: its first
// step's call member, its id where the grammar has steps but no call, and
// the output expression where it has no steps.
func examplePointer(g *Grammar) string {
	switch {
	case g.Call != "":
		return "/steps/0/" + pilotage.EscapePointerToken(g.Call)
	case g.HasSteps():
		return "/steps/0/id"
	}
	return "/output"
}
