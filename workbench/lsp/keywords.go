package lsp

// keywordDoc is what hovering a PDL keyword shows: its meaning, the Part
// II section it states and its docs/pdl.md section. Completion offers
// keywords from the compiler itself (statementsAt), so this table only
// explains them; a keyword missing here still completes and checks.
var keywordDoc = map[string]struct{ meaning, section, anchor string }{
	"server":        {"Names the MCP server the file describes, with its version.", "5.1", "the-file"},
	"language":      {"Defines a Pilotage Language: its title, locator, mode, capabilities, grammar and guides.", "3.1", "languages"},
	"entry":         {"Defines a catalog entry: its kind, risk level, schemas and behaviour in the workbench.", "5.4", "catalog-entries"},
	"principal":     {"Declares a principal and the entry patterns it sees.", "10.3", "principals"},
	"sees":          {"Lists the entry id patterns a principal's catalog shows.", "10.3", "principals"},
	"risk":          {"Declares a risk level with its hints (readOnly, destructive, openWorld).", "5.3", "risk"},
	"kind":          {"Declares an entry kind; callable kinds can be called by steps, promoted ones hold programs.", "5.4", "kind"},
	"diagnostic":    {"Declares a diagnostic code validate may report, with its meaning.", "5.5", "diagnostic"},
	"status":        {"Declares a Run or step status, whether it is ok and whether effects may have happened.", "5.7", "status"},
	"capabilities":  {"Lists the operations the Language supports and their sub-features.", "4.2", "capabilities"},
	"limits":        {"Bounds a Run: steps, time, depth, iterations, expansion, memory, program size.", "10.1", "limits"},
	"grammar":       {"Names the step forms programs may use (call, branch, loop, run) and their members.", "3.1", "grammar"},
	"guide":         {"Defines a guide: its level, topics and Markdown body or file.", "5.2", "guide"},
	"prose":         {"Appends an author's paragraph to a fixed prose section of the closed-sets guide.", "5.2", "prose"},
	"locator":       {"How diagnostics point into programs: json-pointer or text-range.", "5.5", "languages"},
	"mode":          {"Execution mode: immediate or deferred.", "6.5.7", "languages"},
	"trace":         {"The trace level Runs record: none, summary or full.", "5.8.1", "languages"},
	"retention":     {"How long Runs and traces are kept (ISO 8601 duration).", "4.3", "languages"},
	"input_schema":  {"The JSON Schema of the entry's arguments (inline or file=).", "5.4", "catalog-entries"},
	"output_schema": {"The JSON Schema of the entry's result (inline or file=).", "5.4", "catalog-entries"},
	"compute":       {"A CEL expression over input giving the entry's output when the workbench serves it (not part of the spec).", "5.4", "catalog-entries"},
	"fail":          {"Makes the entry fail with a declared status when its condition holds, in the workbench (not part of the spec).", "5.4", "catalog-entries"},
	"body":          {"A promoted program's body, or a guide's Markdown.", "3.5", "catalog-entries"},
	"syntax":        {"Declares a text syntax for programs of a text-valued Language.", "3.2", "text-programs-syntax-text"},
}
