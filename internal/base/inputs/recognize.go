package inputs

import (
	"bytes"

	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
)

// Recognize is the kind of project document root unmistakably is, by its
// shape, for the verb given one kind of file in place of another (a plan
// given to validate, a program to replay's --plan): Manifest, Snapshot,
// Trace (or an execute response), Plan (or a validate response carrying
// one), Response (a validate response without a plan) or Program.
// Unknown when it is none of them, or might be what the verb takes: a
// program's input is any object, so only a program whose steps read as
// the engine's (call, if, for_each or run, and no plan step's kind) is
// one, never an object that merely has steps; such steps make it one
// whatever else it holds.
func Recognize(root jsonpos.Node) Kind {
	if !root.Is(jsonpos.Object) {
		return Unknown
	}
	switch {
	case programSteps(root.Get("steps")):
		// Steps that read as a program's make it one, whatever stray
		// member it has besides ("valid", "languages"): its
		// diagnostics name the stray member.
		return Program
	case root.Has("snapshot"):
		return Snapshot
	case root.Has("pilotage") || root.Has("languages"):
		return Manifest
	case root.Has("run_id") || root.Get("trace").Is(jsonpos.Object):
		return Trace
	case root.Has("max_risk") || root.Has("valid") && root.Get("plan").Is(jsonpos.Object):
		return Plan
	case root.Get("valid").Is(jsonpos.Bool):
		return Response
	}
	return Unknown
}

// programSteps reports whether steps is a non-empty array of program
// steps of the default grammar: objects with a call, if, for_each or run
// member and no kind, which every plan step has (§5.6).
func programSteps(steps jsonpos.Node) bool {
	if !steps.Is(jsonpos.Array) || steps.Len() == 0 {
		return false
	}
	for _, st := range steps.Elems() {
		if !st.Is(jsonpos.Object) || st.Has("kind") ||
			!st.Has("call") && !st.Has("if") && !st.Has("for_each") && !st.Has("run") {
			return false
		}
	}
	return true
}

// RecognizeSrc is Recognize of a file's bytes: Unknown when they are no
// JSON object, or one too dense to build a tree of (jsonpos.CheckBudget),
// so a verb may ask it of any file it failed on, text and YAML included,
// at the cost of one check before a parse.
func RecognizeSrc(src []byte) Kind {
	trimmed := bytes.TrimLeft(src, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' || jsonpos.CheckBudget(src) != nil {
		return Unknown
	}
	doc, err := jsonpos.ParseShared(src)
	if err != nil {
		return Unknown
	}
	return Recognize(doc.Root)
}

// Use says which verb reads a document of kind k, as the hint of a verb
// given one it does not take; "" for Unknown and Other.
func (k Kind) Use() string {
	switch k {
	case Manifest:
		return "lint it with pilotage lint FILE"
	case Snapshot:
		return "lint it with pilotage lint FILE, or give it to pilotage replay as --snapshot (docs/replay.md)"
	case Trace:
		return "check a trace against the plan it ran from with pilotage replay FILE --plan PLAN (docs/replay.md)"
	case Plan:
		return "a plan is what traces are checked against: pilotage replay TRACE --plan FILE (docs/replay.md)"
	case Response:
		return "pilotage validate --format json writes it; it carries the plan of a valid program, which is what pilotage replay TRACE --plan FILE reads (docs/replay.md)"
	case Program:
		return "check a program against its Language with pilotage validate --lang LANG.pdl FILE"
	}
	return ""
}
