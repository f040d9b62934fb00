package replay

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/closedsets"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/language"
)

// Language is what replay knows of the Language a trace ran in, from the
// snapshot a server publishes or pilotage build writes: its declared trace
// ceiling, how it traces sub-programs and its closed sets.
type Language struct {
	ID              string
	TraceLevel      string
	TraceSubprogram string
	// ExecutionMode is immediate, deploy or both (§6.5.7); TestRun says
	// whether execute.test_run is declared and Narrate whether
	// trace_fetch.narrate is, both in the Language's effective
	// capabilities (§4.2).
	ExecutionMode string
	TestRun       bool
	Narrate       bool
	Sets          closedsets.Sets
	// Arms are the branch arm labels of the grammar. A snapshot does not
	// carry the grammar, so LoadSnapshot leaves them empty; a caller that
	// compiled the Language from its PDL (pilotage replay --lang) sets them.
	Arms []string
	// engineTruncation is true when the closed-sets guide documents the
	// workbench engine's summary truncation form, the one form replay can
	// check; other forms are prose.
	engineTruncation bool
}

// snapshotFile is the part of a snapshot (data-model.md) replay reads.
type snapshotFile struct {
	Snapshot string `json:"snapshot"`
	Manifest struct {
		Capabilities pilotage.Capabilities `json:"capabilities"`
		Languages    []snapshotLanguage    `json:"languages"`
	} `json:"manifest"`
	Guides map[string][]struct {
		ID     string   `json:"id"`
		Topics []string `json:"topics"`
		Body   *string  `json:"body"`
	} `json:"guides"`
}

type snapshotLanguage struct {
	ID              string                `json:"id"`
	Capabilities    pilotage.Capabilities `json:"capabilities"`
	ExecutionMode   string                `json:"execution_mode"`
	TraceLevel      string                `json:"trace_level"`
	TraceSubprogram string                `json:"trace_subprogram"`
}

// LoadSnapshot reads the Language id (or the snapshot's only Language
// when id is "") and parses its closed-sets guide. A snapshot that does
// not give replay what it needs is an error: checking against half a
// closed set would pass traces silently. A file that is not JSON, or has
// a member replay reads with the wrong type, is an *InputError at the
// line:col of the problem.
func LoadSnapshot(file string, src []byte, id string) (*Language, error) {
	doc, err := parseFile(file, src, "snapshot", "give the snapshot.json pilotage build writes; docs/snapshot.md describes the format")
	if err != nil {
		return nil, err
	}
	var s snapshotFile
	if p := decodeNode(doc, doc.Root, nil, reflect.ValueOf(&s).Elem()); p != nil {
		pos := doc.Position(p.node.Start())
		return nil, &InputError{File: file, Line: pos.Line, Col: pos.Column, Msg: "not a snapshot replay can read: " + p.msg,
			Hint: "run pilotage lint on the snapshot to see every problem in it; docs/snapshot.md describes the format"}
	}
	if s.Snapshot == "" {
		return nil, fmt.Errorf("%s: not a snapshot (no snapshot member); see docs/snapshot.md", file)
	}
	langs := s.Manifest.Languages
	var ids []string
	for _, l := range langs {
		ids = append(ids, l.ID)
	}
	i := slices.IndexFunc(langs, func(l snapshotLanguage) bool { return l.ID == id })
	switch {
	case id == "" && len(langs) == 1:
		i = 0
	case id == "":
		return nil, fmt.Errorf("%s: the snapshot has %d Languages (%s); choose one with --language", file, len(langs), strings.Join(report.Clips(ids), ", "))
	case i < 0:
		return nil, fmt.Errorf("%s: no Language %s in the snapshot (it has %s)", file, report.Quote(id), strings.Join(report.Clips(ids), ", "))
	}
	l := &Language{ID: langs[i].ID, TraceLevel: langs[i].TraceLevel, TraceSubprogram: langs[i].TraceSubprogram,
		ExecutionMode: langs[i].ExecutionMode}
	// The sub-features replay checks come from the effective capabilities
	// (§4.2): the Server-level declaration unless the Language names the
	// capability itself.
	eff := pilotage.Effective(s.Manifest.Capabilities, langs[i].Capabilities)
	l.TestRun = eff.HasSub(pilotage.CapExecute, pilotage.SubTestRun)
	l.Narrate = eff.HasSub(pilotage.CapTraceFetch, pilotage.SubNarrate)
	var body *string
	for _, g := range s.Guides[l.ID] {
		if slices.Contains(g.Topics, pilotage.TopicClosedSets) && g.Body != nil {
			if body != nil {
				return nil, fmt.Errorf("%s: Language %q has more than one closed-sets guide; run pilotage lint on the snapshot", file, l.ID)
			}
			body = g.Body
		}
	}
	if body == nil {
		return nil, fmt.Errorf("%s: Language %q has no closed-sets guide with a body; run pilotage lint on the snapshot", file, l.ID)
	}
	l.Sets = closedsets.Parse([]byte(*body)).Sets
	l.engineTruncation = strings.Contains(squash(l.Sets.Truncation), squash(language.TruncationText))
	return l, nil
}

// summarizes reports whether a loop decision's took, neither continue nor
// exit, is a value of the Language's summarized form (§5.8.2): one the
// closed-sets guide's Loop decisions table lists. closed-sets-format.md
// makes any other value an error once the Language is known, so a section
// of prose without the table accepts none (lint's loop-decisions-table
// warns of it). Without the Language no value is.
func (l *Language) summarizes(took string) bool {
	return l != nil && slices.ContainsFunc(l.Sets.LoopTook, func(t closedsets.Took) bool { return t.Took == took })
}

// loopValues lists the took values a loop decision of the Language may
// take, for messages: continue, exit and the Loop decisions table's.
func (l *Language) loopValues() string {
	values := []string{pilotage.DecisionContinue, pilotage.DecisionExit}
	for _, t := range l.Sets.LoopTook {
		if !slices.Contains(values, t.Took) {
			values = append(values, t.Took)
		}
	}
	if values = report.Clips(values); len(values) > report.ClipNames {
		return strings.Join(values, ", ") // the last counts the rest
	}
	return strings.Join(values[:len(values)-1], ", ") + " or " + values[len(values)-1]
}

// squash folds whitespace so a guide's line wrapping does not matter.
func squash(s string) string { return strings.Join(strings.Fields(s), " ") }
