// Package language is the compiled model of a PDL definition: everything
// one `.pdl` file says about its Server and Languages, resolved and checked.
// It is data only, the contract between the compiler that produces it and
// the emitters, the engine and the MCP server that consume it.
package language

import (
	"encoding/json"
	"path"
	"time"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/closedsets"
)

// Pos is a position in a PDL (or named) source file: 1-based line and
// column, byte offset.
type Pos struct {
	File   string
	Line   int
	Column int
	Offset int
}

// Server is one compiled PDL file: a Server and its Languages.
type Server struct {
	Name    string
	Version string
	// Capabilities is the Server-level default declaration (§4.2), nil
	// when the PDL declares none at server level.
	Capabilities pilotage.Capabilities
	Languages    []*Language
	// Catalog holds every catalog entry of the Server; each Language sees
	// the entries whose `languages` list names it (or is empty).
	Catalog    []*Entry
	Principals []*Principal
	// Pos is where the server block (or the file) starts.
	Pos Pos
	// Positions maps a JSON Pointer into the emitted snapshot that belongs
	// to no one Language (the manifest's server and capabilities members)
	// to the PDL construct it came from.
	Positions map[string]Pos
}

// Language is one compiled Language.
type Language struct {
	ID          string
	Title       string
	Description string
	// Capabilities is the Language-level declaration as authored; the
	// effective map is pilotage.Effective(server.Capabilities, this).
	Capabilities pilotage.Capabilities

	Locator            string // pilotage.LocatorJSONPointer | LocatorTextRange
	ExecutionMode      string // "" when execute is not declared
	TraceLevel         string
	Retention          string
	TraceSubprogram    string // "" means the default, opaque
	PromotionAuthority string // "" means the default, caller
	ContextSchema      json.RawMessage

	Limits  Limits
	Grammar Grammar
	// Text is the text surface a `syntax text` block declares; nil when
	// programs are the JSON step model (as a value, or as a string under
	// locator text-range).
	Text   *TextSyntax
	Sets   closedsets.Sets // every closed set, reserved values included
	Guides []*Guide

	// Pos locates the language block; Positions maps a JSON Pointer into
	// the emitted snapshot that belongs to this Language — under its
	// manifest entry, its guides and its catalog, written from the
	// snapshot's root ("/manifest/languages/0/execution_mode",
	// "/guides/homeflow~1v1/0/body", "/catalog/homeflow~1v1/items/3") —
	// to the PDL construct it came from. Items locate the Language's
	// catalog items, by index, in its own file: each its entry
	// statement, whose members' places ItemSpotsAt, when set, reads again
	// from the file (ItemSpots). GuideSpots locate its authored guides
	// (Position reads all three).
	Pos         Pos
	Positions   map[string]Pos
	Items       []Spot
	ItemSpotsAt func(item Spot) ItemSpots
	GuideSpots  []GuideSpots
	// SetValues locates the statement that defines each value of the
	// Language's closed sets, by set ("risk", "kind", "diagnostic",
	// "status run", "status step") then value: the closed-sets guide is
	// generated, so a finding about one of its values has no line of its
	// own in the PDL but that statement's. Spots, read through SetValue:
	// a Language of 25,000 risk levels kept 40 bytes a value
	// (docs/performance.md, "Many small guides"), and a key of set and
	// value joined 16 more ("The last Language rows under 10 bytes a
	// byte"); a value's key is its own string.
	SetValues map[string]map[string]Spot
}

// Limits are the evaluation bounds of §10.1.
type Limits struct {
	Steps        int           // executed steps per Run (loop iterations count every body step)
	Time         time.Duration // wall time per Run
	Depth        int           // nesting depth of programs and expressions (recursion)
	Iterations   int           // iterations of one loop activation
	Expansion    int           // nesting of promoted sub-program calls
	MemoryBytes  int64         // bytes of values a Run may hold (outputs, bindings)
	ProgramBytes int           // size of a program text accepted by validate
}

// Grammar is the surface of the fixed step model: the member names a JSON
// program uses for each construct. A program is
//
//	{"steps": [STEP, ...], "output": EXPR}
//
// and a STEP has an "id" plus exactly one construct member.
type Grammar struct {
	// Call invokes a catalog entry: {"id", Call: "entry.id", Args: {...}}.
	Call, Args string
	// Branch selects an arm: {"id", Branch: COND, Arms[0]: [...], Arms[1]: [...]}.
	// The first arm runs when the condition is true, the second otherwise.
	Branch string
	Arms   []string
	// Loop iterates a list: {"id", Loop: LIST, Item: "name", Body: [...]}.
	Loop, Item, Body string
	// Run calls a promoted program: {"id", Run: "program_ref", RunArgs: {...}}.
	Run, RunArgs string
	// Expressions names the expression language; "cel" is the only one.
	Expressions string
	// Input is true when inline programs accept `input` (bound as the CEL
	// variable `input`).
	Input bool
}

// DefaultGrammar is the grammar of a Language without a grammar block:
// every construct, with the member names of the examples.
var DefaultGrammar = Grammar{
	Call: "call", Args: "with",
	Branch: "if", Arms: []string{"then", "else"},
	Loop: "for_each", Item: "as", Body: "do",
	Run: "run", RunArgs: "with",
	Expressions: "cel",
	Input:       true,
}

// HasControlFlow reports whether programs can branch or loop.
func (g *Grammar) HasControlFlow() bool { return g.Branch != "" || g.Loop != "" }

// HasSteps reports whether the grammar has any step construct; without
// one a program's steps are always empty and it is one output expression.
func (g *Grammar) HasSteps() bool { return g.Call != "" || g.Run != "" || g.HasControlFlow() }

// TextSyntax is the words and punctuation of a text surface for the step
// model (docs/pdl.md, internal/model/syntax). A call has no keyword: it
// is the entry id followed by its arguments in parentheses.
type TextSyntax struct {
	If, Else string // branch: IF COND { … } ELSE { … }
	For, In  string // loop: FOR ITEM IN LIST { … }
	Run      string // promoted program: RUN REF(ARGS)
	Output   string // the program's output: OUTPUT EXPR
	Assign   string // a label: LABEL ASSIGN STATEMENT
	Bind     string // an argument: NAME BIND EXPR
	// Fence is the info string of the guide code blocks that are example
	// programs.
	Fence string
}

// DefaultTextSyntax is the surface of `syntax text` without a block; its
// Fence is the Language's family.
var DefaultTextSyntax = TextSyntax{If: "if", Else: "else", For: "for", In: "in", Run: "run", Output: "output", Assign: "=", Bind: ":"}

// TextAssigns and TextBinds are the punctuation a text surface may use
// for labels and arguments: tokens CEL never needs at the start of an
// argument or a statement.
var (
	TextAssigns = []string{"=", ":=", "<-"}
	TextBinds   = []string{":", "="}
)

// Guide is one guide with its body.
type Guide struct {
	pilotage.Guide
	// Body is the Markdown text; Generated is true for the closed-sets
	// guide, which build renders from Sets.
	Body      string
	Generated bool
	// Source is the file the body came from, "" when inline. Where the
	// guide is written is in its Language's GuideSpots.
	Source string
}

// Entry is a catalog entry and how the local server behaves when a program
// calls it.
type Entry struct {
	pilotage.CatalogEntry
	Behavior Behavior
	// Program is the body of a promoted program entry defined in the PDL.
	Program json.RawMessage
	// ProgramSource is that body as written (a text block dedented), and
	// ProgramAt where it is in the PDL, so that a place in the body maps
	// to the PDL file (ProgramPos); zero when it was not a text block.
	ProgramSource string
	ProgramAt     TextAt
	Pos           Pos
}

// TextAt is where a literal's text sits in its entry's file (Entry.Pos):
// its first line starts at First, and line n > 1 at line Rest.Line+n-2,
// column Rest.Column, since a text block is dedented and its lines share
// one indentation. Spots, without the file: two Pos took 80 bytes of
// every entry, most of which have no program (docs/performance.md,
// "Many small entries").
type TextAt struct{ First, Rest Spot }

// ProgramPos is the place in the PDL of line:col of the entry's
// ProgramSource.
func (e *Entry) ProgramPos(line, col int) Pos {
	at := e.ProgramAt.First
	if line > 1 {
		at = e.ProgramAt.Rest
		at.Line += int32(line - 2)
	}
	return Pos{File: e.Pos.File, Line: int(at.Line), Column: int(at.Column) + col - 1}
}

// Behavior scripts a catalog entry for `pilotage serve`.
type Behavior struct {
	// Returns is a fixed output; ReturnsExpr a CEL expression over `input`
	// whose value is the output. At most one is set; neither means the
	// call returns null.
	Returns     json.RawMessage
	ReturnsExpr string
	// Fails lists scripted failures, tried in order.
	Fails []Failure
	// Latency is added to every call.
	Latency time.Duration
}

// Failure makes a call fail with a step status when a CEL condition over
// `input` holds.
type Failure struct {
	Status  string
	When    string // CEL; empty means always
	Message string
}

// Principal is a caller identity with the entries it may see (§10.3).
type Principal struct {
	Name  string
	Token string
	// Sees are path.Match patterns over entry ids ("*", "lights.*",
	// "fan.[gs]et").
	Sees []string
}

// SeesID reports whether one of p's patterns matches the entry id. The
// compiler (which checks patterns and guides) and the engine (which
// answers callers) both ask here, so what a principal may see is decided
// by one matcher (§10.3).
func (p *Principal) SeesID(id string) bool {
	for _, g := range p.Sees {
		if ok, _ := path.Match(g, id); ok {
			return true
		}
	}
	return false
}
