package language

import pilotage "github.com/pilotage-dev/pilotage"

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

// ScopeRulesText describes when values become addressable (§5.2) in a
// grammar with branches or loops.
const ScopeRulesText = scopeSteps + scopeNested + scopeEverywhere + scopeNumbers

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
	scopeNumbers    = `A JSON number takes its CEL type from the schema that describes it (an entry's input_schema or output_schema, the context_schema): where the schema says ` + "`\"type\": \"number\"`" + ` it is a double, so 10 is read as 10.0 and ` + "`input.price * 1.2`" + ` works; where it says ` + "`\"type\": \"integer\"`" + ` it is an int.
A number no schema types (any field of an inline program's ` + "`input`" + `, a field whose schema has no single numeric type) is an int when its JSON text has no fraction or exponent, and a double otherwise.
CEL does not mix int and double in arithmetic: write 2.0 instead of 2, or convert with double(x) or int(x). An int may be passed where an argument's schema says number.`
)

// ScopeRules is the closed-sets guide's Scope rules section for g. §5.2
// requires the section only of a grammar with branches or loops, but a
// manifest or snapshot does not show the grammar (data-model.md reading
// 14), so every Language states its scope rule: what an expression may
// read in its programs, and how numbers are typed.
func ScopeRules(g *Grammar) string {
	switch {
	case g.HasControlFlow():
		return ScopeRulesText
	case g.Call == "" && g.Run == "":
		return scopeNone + scopeEverywhere + scopeNumbers
	}
	return scopeSteps + scopeFlat + scopeEverywhere + scopeNumbers
}

// ParameterBindingText describes how inline programs receive input (§6.5.5).
const ParameterBindingText = `An inline program receives the execute request's ` + "`input`" + ` as the CEL variable ` + "`input`" + `; it must be a JSON object, or absent (then ` + "`input`" + ` is an empty object).
A promoted program's ` + "`input`" + ` must validate against its catalog entry's input_schema; a violation is a validation_error Run with an input_binding diagnostic whose path points into input.
A call's arguments are an object whose member values are CEL expressions; their values are the entry's input.`

// StepIdentifiersText describes step identity for grammars with native ids.
const StepIdentifiersText = `Every step has a native identifier, its ` + "`id`" + ` member: unique within the program, non-empty, and free of ` + "`#`" + ` and ` + "`/`" + ` (§3.4). Trace entries use it as the base identifier (§5.8.2).`

// TruncationText describes how summary traces truncate output (§5.8.1).
const TruncationText = "At level `summary` a step's `output` whose JSON text is longer than 1024 bytes is replaced by " +
	"`{\"truncated\": true, \"bytes\": N, \"preview\": \"…\"}`: N is the length of the full JSON text in bytes and preview holds its first 256 characters. " +
	"Shorter outputs appear whole. Step `input` is never present at `summary`."

// OutputText describes the run-level output (§6.5).
const OutputText = "For an immediate Run or a test run, `output` is the value of the program's top-level `output` expression, evaluated after the last step; " +
	"it is absent when the program has no `output` member or the Run did not succeed. " +
	"For a deploy Run, `output` is the installation result `{\"program_ref\": \"…\"}`: the catalog id of the installed program."

// DiagnosticPathsText says how a diagnostic's path locates it under each
// locator dialect (§5.5); the closed-sets guide states the Language's one
// after its Diagnostic codes table. A text-range Language's program is the
// same JSON step model, sent as a string: positions count in that text.
var DiagnosticPathsText = map[string]string{
	pilotage.LocatorJSONPointer: "Programs are JSON values (locator `json-pointer`, §5.5). A diagnostic's `path` is a JSON Pointer into the program, such as `/steps/0/call`; `\"\"` is the whole program. " +
		"When the finding is inside an expression, `range` gives its start and end in that string as 0-based, end-exclusive code-point offsets. " +
		"An `input_binding` or `context_binding` diagnostic's `path` is a JSON Pointer into the input or the context instead.",
	pilotage.LocatorTextRange: "Programs are text (locator `text-range`, §5.5): send the program as one JSON string holding the program text, written as the examples write it. " +
		"A diagnostic's `path` is `{\"start\": {\"line\": L, \"column\": C}, \"end\": {\"line\": L, \"column\": C}}` in that text: lines and columns are 1-based, columns count characters, and `end` is the position just after the last character of the finding. " +
		"Text that is not JSON gets a `syntax` diagnostic at the character where reading stopped (an empty range at the end when the text ends early); a finding about the whole program spans all of it. `range` is never used. " +
		"An `input_binding` or `context_binding` diagnostic's `path` is a JSON Pointer into the input or the context.",
}
