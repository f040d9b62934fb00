package lint

import (
	"encoding/json"
	"iter"
	"strconv"
	"strings"
	"unicode/utf8"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/closedsets"
	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// Pass is what a rule sees of one input: the parsed document and a view
// of each Language in it. Rules report through it with JSON Pointers; the
// pass turns pointers into positions.
type Pass struct {
	In   *Input
	Doc  *jsonpos.Doc
	Kind InputKind
	// Manifest is the manifest object (the root of a manifest file, or the
	// snapshot's `manifest` member); the zero Node when absent or not an object.
	Manifest jsonpos.Node
	// ManifestPtr is the pointer of Manifest: "" or "/manifest".
	ManifestPtr string
	// Major and Minor are the parsed `pilotage` version; VersionOK is false
	// when it is missing or not `major.minor`.
	Major, Minor int
	VersionOK    bool
	// Languages are the manifest's Language entries that are objects.
	Languages []*Language
	// Baseline is the earlier capture the input is compared with
	// (Config.Baseline), seen the same way; nil without one, and then the
	// evolution rules, which need it, do nothing.
	Baseline *Pass

	rule *Rule
	// findings are those listed; cap, nil for none, counts the rest as
	// they are reported, so a document wrong in every entry holds no more
	// findings than the report lists (a finding is some hundred bytes, a
	// catalog entry can be 60).
	findings []report.Finding
	cap      *report.Cap
	// standIns are the stand-ins of the long guides and catalog keys
	// (PartPointer), and standInOf the stand-in of a key's whole pointer.
	standIns  map[string]standIn
	standInOf map[string]string
}

// standIn is what a PartPointer stand-in stands for: the member's whole
// pointer, its value and the place of its name.
type standIn struct {
	whole string
	value jsonpos.Node
	name  jsonpos.Pos
}

// Language is one Language entry with everything lint knows of it.
type Language struct {
	Node    jsonpos.Node
	Pointer string // e.g. "/manifest/languages/0"
	ID      string
	// Caps is the effective capability map (§4.2). Malformed capability
	// values are left out (the schema rule reports them).
	Caps pilotage.Capabilities
	// HasGuides is true when the input carries this Language's guides
	// (snapshots); Guides and GuidesPtr are then set.
	HasGuides bool
	GuidesPtr string
	Guides    []*Guide
	// Catalog is the Language's catalog in a snapshot, or nil.
	Catalog *Catalog
	// Grammar is known for PDL inputs only.
	Grammar *Grammar

	closedSets     *ClosedSets
	closedSetsDone bool
}

// Guide is one guide object of a snapshot.
//
// A guide's pointer and topics are read when asked for, not held: 15,000
// guides held 64 bytes a guide of them while the rules ran
// (docs/performance.md, "The last Language rows under 10 bytes a byte").
type Guide struct {
	Node  jsonpos.Node
	ID    string
	Level string
	// Body is the guide's body; HasBody is false when it is absent.
	Body    string
	HasBody bool
	// index is the guide's in the array at guides, its Language's
	// GuidesPtr.
	index  int32
	guides string
}

// Pointer is the guide's JSON Pointer.
func (g *Guide) Pointer() string { return g.guides + "/" + strconv.Itoa(int(g.index)) }

// Index is the guide's place in its Language's guides.
func (g *Guide) Index() int { return int(g.index) }

// Topics are the guide's topics, each with its index.
func (g *Guide) Topics() iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		for i, t := range g.Node.Get("topics").Elems() {
			if !yield(i, t.String()) {
				return
			}
		}
	}
}

// HasTopic reports whether the guide lists topic t.
func (g *Guide) HasTopic(t string) bool {
	for _, x := range g.Topics() {
		if x == t {
			return true
		}
	}
	return false
}

// Guide returns the Language's guide with the given id, or nil when there
// is none or the id repeats (guide-id-unique's finding), since then no one
// guide is the one to compare with.
func (l *Language) Guide(id string) *Guide {
	return only(l.Guides, func(g *Guide) bool { return g.ID == id })
}

// only returns the one element of xs that match accepts, or nil when none
// or several do: the evolution rules pair values of two captures by id,
// and a repeated id (another rule's finding) pairs with nothing.
func only[T any](xs []*T, match func(*T) bool) *T {
	var found *T
	for _, x := range xs {
		if match(x) {
			if found != nil {
				return nil
			}
			found = x
		}
	}
	return found
}

// Catalog is one Language's catalog in a snapshot.
type Catalog struct {
	Node    jsonpos.Node
	Pointer string
	Entries []*Entry
}

// Entry is one catalog entry.
type Entry struct {
	Node jsonpos.Node
	ID   string
	Kind string
	// index is the entry's in its catalog's items, whose pointer is
	// items: a pointer string of its own took 40 bytes of every entry.
	index int32
	items *string
}

// Pointer is the entry's JSON Pointer.
func (e *Entry) Pointer() string { return *e.items + "/" + strconv.Itoa(int(e.index)) }

// Index is the entry's place in its catalog's items.
func (e *Entry) Index() int { return int(e.index) }

// ClosedSets is a Language's closed-sets guide, parsed.
type ClosedSets struct {
	Guide  *Guide
	Parsed *closedsets.Parsed
}

// ClosedSets returns the Language's one closed-sets guide parsed, or nil
// when the input has no guides, there is not exactly one guide with the
// topic, or it has no body. Other rules report those conditions.
func (l *Language) ClosedSets() *ClosedSets {
	if l.closedSetsDone {
		return l.closedSets
	}
	l.closedSetsDone = true
	var found []*Guide
	for _, g := range l.Guides {
		if g.HasTopic(pilotage.TopicClosedSets) {
			found = append(found, g)
		}
	}
	if len(found) != 1 || !found[0].HasBody {
		return nil
	}
	l.closedSets = &ClosedSets{Guide: found[0], Parsed: closedsets.Parse([]byte(found[0].Body))}
	return l.closedSets
}

// newPass detects what the document is and builds the Language views.
func newPass(in *Input, doc *jsonpos.Doc) *Pass {
	p := &Pass{In: in, Doc: doc}
	root := doc.Root
	switch {
	case root.Is(jsonpos.Object) && root.Has("snapshot"):
		p.Kind = KindSnapshot
		p.ManifestPtr = "/manifest"
		p.Manifest = root.Get("manifest")
	case root.Is(jsonpos.Object) && (root.Has("pilotage") || root.Has("languages")):
		p.Kind = KindManifest
		p.Manifest = root
	default:
		p.Kind = KindUnknown
	}
	if !p.Manifest.Is(jsonpos.Object) {
		p.Manifest = jsonpos.Node{}
		return p
	}
	p.Major, p.Minor, p.VersionOK = ParseVersion(p.Manifest.Get("pilotage").String())
	server := capabilitiesOf(p.Manifest.Get("capabilities"))
	langs := p.Manifest.Get("languages")
	if !langs.Is(jsonpos.Array) {
		return p
	}
	for i, ln := range langs.Elems() {
		if !ln.Is(jsonpos.Object) {
			continue
		}
		l := &Language{
			Node:    ln,
			Pointer: p.ManifestPtr + "/languages/" + strconv.Itoa(i),
			ID:      ln.Get("id").String(),
		}
		l.Caps = pilotage.Effective(server, capabilitiesOf(ln.Get("capabilities")))
		if in.Grammars != nil {
			l.Grammar = in.Grammars[l.ID]
		}
		if p.Kind == KindSnapshot {
			p.attachSnapshotParts(l)
		}
		p.Languages = append(p.Languages, l)
	}
	return p
}

// attachSnapshotParts finds the Language's guides and catalog.
func (p *Pass) attachSnapshotParts(l *Language) {
	root := p.Doc.Root
	if gs := root.Get("guides").Get(l.ID); gs.Is(jsonpos.Array) {
		l.HasGuides = true
		l.GuidesPtr = p.PartPointer("guides", l.ID)
		for i, gn := range gs.Elems() {
			if !gn.Is(jsonpos.Object) {
				continue
			}
			g := &Guide{Node: gn, index: int32(i), guides: l.GuidesPtr, ID: gn.Get("id").String(),
				Level: gn.Get("level").String()}
			if b := gn.Get("body"); b.Is(jsonpos.String) {
				g.Body, g.HasBody = b.Str(), true
			}
			l.Guides = append(l.Guides, g)
		}
	}
	if cn := root.Get("catalog").Get(l.ID); cn.Is(jsonpos.Object) {
		c := &Catalog{Node: cn, Pointer: p.PartPointer("catalog", l.ID)}
		items := c.Pointer + "/items"
		for i, en := range cn.Get("items").Elems() {
			if !en.Is(jsonpos.Object) {
				continue
			}
			c.Entries = append(c.Entries, &Entry{Node: en, index: int32(i), items: &items,
				ID: en.Get("id").String(), Kind: en.Get("kind").String()})
		}
		l.Catalog = c
	}
}

// PartPointer is the pointer of the member key of the snapshot's part
// ("guides" or "catalog"), the prefix of the pointer of every guide or
// entry in it. The key is a Language's id, so a pointer built from it is
// as long as the id, for each guide and entry: a 1 MB id cost 1 MB an
// entry (2.2 GB for 2,000) and a megabyte in each finding's pointer. A
// key whose token is longer than report.ClipBytes is written as a stand-in
// of at most that many bytes, its first bytes and an ellipsis, then a
// number when another key (or a member that is named so) has the same
// stand-in; a finding's position resolves it back to the key
// (docs/rules/README.md, "Findings and their pointers").
func (p *Pass) PartPointer(part, key string) string {
	tok := pilotage.EscapePointerToken(key)
	whole := "/" + part + "/" + tok
	if len(tok) <= report.ClipBytes {
		return whole
	}
	if s, ok := p.standInOf[whole]; ok {
		return s
	}
	if p.standIns == nil {
		p.standIns, p.standInOf = map[string]standIn{}, map[string]string{}
	}
	s := "/" + part + "/" + report.Clip(tok)
	for n := 2; p.standIns[s].whole != "" || p.Doc.Root.At(s).Exists(); n++ {
		suffix := strconv.Itoa(n)
		cut := report.ClipBytes - len("…") - len(suffix)
		for !utf8.RuneStart(tok[cut]) {
			cut--
		}
		s = "/" + part + "/" + tok[:cut] + "…" + suffix
	}
	name, _ := p.Doc.Locate(whole, true)
	p.standIns[s], p.standInOf[whole] = standIn{whole, p.Doc.Root.Get(part).Get(key), name}, s
	return s
}

// cutStandIn splits pointer into the stand-in it begins with and the
// rest; ok is false when it begins with none.
func (p *Pass) cutStandIn(pointer string) (s standIn, rest string, ok bool) {
	if len(p.standIns) == 0 {
		return standIn{}, "", false
	}
	// A stand-in is the pointer's first two tokens, "/catalog/…".
	second := strings.IndexByte(pointer[min(1, len(pointer)):], '/') + 1
	if second == 0 {
		return standIn{}, "", false
	}
	end := len(pointer)
	if i := strings.IndexByte(pointer[second+1:], '/'); i >= 0 {
		end = second + 1 + i
	}
	s, ok = p.standIns[pointer[:end]]
	return s, pointer[end:], ok
}

// whole is pointer with a PartPointer stand-in replaced by the key's
// whole pointer, which a Locator resolves.
func (p *Pass) whole(pointer string) string {
	if s, rest, ok := p.cutStandIn(pointer); ok {
		return s.whole + rest
	}
	return pointer
}

// capabilitiesOf reads a capability declaration leniently: members whose
// value is not a boolean or an object of booleans are left out.
func capabilitiesOf(n jsonpos.Node) pilotage.Capabilities {
	if !n.Is(jsonpos.Object) {
		return nil
	}
	caps := pilotage.Capabilities{}
	for _, m := range n.Members() {
		switch m.Value.Kind() {
		case jsonpos.Bool:
			caps[m.Key] = pilotage.CapabilityValue{Declared: m.Value.Bool()}
		case jsonpos.Object:
			v := pilotage.CapabilityValue{Declared: true, Sub: map[string]bool{}}
			for _, s := range m.Value.Members() {
				if s.Value.Kind() == jsonpos.Bool {
					v.Sub[s.Key] = s.Value.Bool()
				}
			}
			caps[m.Key] = v
		}
	}
	return caps
}

// ParseVersion parses a `major.minor` version string (§11.1): two
// non-negative decimal integers without leading zeros or a patch number.
func ParseVersion(s string) (major, minor int, ok bool) {
	a, b, found := strings.Cut(s, ".")
	if !found {
		return 0, 0, false
	}
	num := func(x string) (int, bool) {
		if x == "" || (len(x) > 1 && x[0] == '0') {
			return 0, false
		}
		for _, c := range x {
			if c < '0' || c > '9' {
				return 0, false
			}
		}
		n, err := strconv.Atoi(x)
		return n, err == nil
	}
	major, ok1 := num(a)
	minor, ok2 := num(b)
	return major, minor, ok1 && ok2
}

// ClosedSetSeverity is the severity of a value outside a closed set
// (reading 11): an error in a 1.0 or 1.1 manifest, a warning in a later
// minor version, which may add values.
func (p *Pass) ClosedSetSeverity() report.Severity {
	if p.VersionOK && p.Major == pilotage.Major && p.Minor > 1 {
		return report.Warning
	}
	return report.Error
}

// Decode unmarshals the value at n into v with encoding/json, for rules
// that want typed access to a small subtree. It reports whether it worked.
func (p *Pass) Decode(n jsonpos.Node, v any) bool {
	if !n.Exists() {
		return false
	}
	return json.Unmarshal(p.Doc.Raw(n), v) == nil
}

// Report records a finding at the value at pointer, with the rule's
// severity. hint may be empty.
func (p *Pass) Report(pointer, message, hint string) {
	p.ReportAs(p.rule.Severity, pointer, false, message, hint)
}

// ReportKey records a finding at the member name of the last token of
// pointer (for "this member should not be here").
func (p *Pass) ReportKey(pointer, message, hint string) {
	p.ReportAs(p.rule.Severity, pointer, true, message, hint)
}

// ReportAs records a finding with an explicit severity, for rules whose
// severity depends on the input (reading 11, reading 14).
func (p *Pass) ReportAs(sev report.Severity, pointer string, key bool, message, hint string) {
	p.report(sev, pointer, key, message, hint)
}

// report records a finding and returns it to be completed, or nil when
// the cap lists no more of the rule in its file and only counts it; its
// position, a search of the document, is found only for one listed. Its
// pointer is clipped as its message is (report.ClipPointer), in every
// format: a long member name, in the pointer of every finding under it,
// would otherwise multiply the report; its line:col place it.
func (p *Pass) report(sev report.Severity, pointer string, key bool, message, hint string) *report.Finding {
	f := report.Finding{Rule: p.rule.ID, Section: p.rule.Section, Severity: sev, Message: message,
		Hint: hint, Pointer: report.ClipPointer(pointer), File: p.In.File}
	if p.In.Locate != nil {
		// The file is the locator's (a PDL or a file it reads), and
		// the cap counts per file.
		f.File, f.Line, f.Column, f.EndLine, f.EndColumn = p.position(pointer, key)
	}
	// A finding of a JSON document is offered before it is placed, so
	// those of a rule are listed in the order the rule raises them, the
	// order of the document it walks (report.Cap).
	if p.cap != nil && !p.cap.Admit(f) {
		return nil
	}
	if p.In.Locate == nil {
		f.File, f.Line, f.Column, f.EndLine, f.EndColumn = p.position(pointer, key)
	}
	if p.cap != nil {
		return p.cap.Keep(f)
	}
	p.findings = append(p.findings, f)
	return &p.findings[len(p.findings)-1]
}

// Counted counts a finding of the rule at pointer as left out and
// reports true when the cap lists no more of the rule in the finding's
// file; it counts nothing and reports false when the finding would be
// listed, to be reported then. A rule whose message costs more than
// finding the fault (a did-you-mean, a schema violation worded) asks
// first: on a document wrong in every entry, building 250,000 messages
// for a report that lists 50 took most of lint's time.
func (p *Pass) Counted(pointer string) bool { return p.CountedAs(p.rule.Severity, pointer) }

// CountedAs is Counted for a finding of severity sev (ReportAs).
func (p *Pass) CountedAs(sev report.Severity, pointer string) bool {
	if p.cap == nil {
		return false
	}
	f := report.Finding{Rule: p.rule.ID, Section: p.rule.Section, Severity: sev, File: p.In.File}
	if p.In.Locate != nil {
		f.File, f.Line, f.Column = p.In.Locate(p.whole(pointer), false)
	}
	return p.cap.LeaveAll(f, 1)
}

// ReportRelated records a finding at the value at pointer that also
// names other places, such as the same value in the baseline (Location).
func (p *Pass) ReportRelated(sev report.Severity, pointer, message, hint string, related ...report.Location) {
	if f := p.report(sev, pointer, false, message, hint); f != nil {
		f.Related = related
	}
}

// ReportCiting is Report for a finding that cites sections of its own,
// most specific first, instead of the rule's (report.CiteSections); with
// none, the rule's section stands.
func (p *Pass) ReportCiting(sections []string, pointer, message, hint string) {
	if f := p.report(p.rule.Severity, pointer, false, message, hint); f != nil {
		f.CiteSections(sections)
	}
}

// Location is where the value at pointer is in this pass's document, for
// a related location of a finding in another document (the baseline's
// side of a comparison).
func (p *Pass) Location(pointer, note string) report.Location {
	file, line, col, _, _ := p.position(pointer, false)
	return report.Location{File: file, Line: line, Column: col, Pointer: report.ClipPointer(pointer), Note: note}
}

// position maps a pointer (or, with key, its last member name) to the
// place a finding shows: through the input's Locator when it has one,
// otherwise in the JSON source, with an end for a scalar value.
func (p *Pass) position(pointer string, key bool) (file string, line, col, endLine, endCol int) {
	if p.In.Locate != nil {
		file, line, col = p.In.Locate(p.whole(pointer), key)
		return file, line, col, 0, 0
	}
	// Under a stand-in the rest of the pointer is resolved from the
	// member it stands for, so the key's whole pointer is never built.
	base, rest := p.Doc.Root, pointer
	if s, r, ok := p.cutStandIn(pointer); ok {
		if r == "" && key {
			return p.In.File, s.name.Line, s.name.Column, 0, 0
		}
		base, rest = s.value, r
	}
	pos, resolved := base.Locate(rest, key)
	if resolved == rest && !key {
		if n := base.At(rest); n.Exists() && n.Kind() != jsonpos.Object && n.Kind() != jsonpos.Array {
			end := p.Doc.Position(n.End())
			endLine, endCol = end.Line, end.Column
		}
	}
	return p.In.File, pos.Line, pos.Column, endLine, endCol
}

// Language returns the Language entry with the given id, or nil. When the
// id repeats (language-id-unique's finding) there is no one entry to
// compare with, so it returns nil too.
func (p *Pass) Language(id string) *Language {
	return only(p.Languages, func(l *Language) bool { return l.ID == id })
}

// LanguagePair is one Language in the input and in the baseline.
type LanguagePair struct {
	Now, Before *Language
}

// BaselinePairs pairs each Language of the input with the baseline's
// Language of the same id, for the evolution rules: none without a
// baseline, and none for an id that is missing or repeats on either side.
func (p *Pass) BaselinePairs() []LanguagePair {
	if p.Baseline == nil {
		return nil
	}
	var out []LanguagePair
	for _, l := range p.Languages {
		if l.ID == "" || p.Language(l.ID) == nil {
			continue
		}
		if old := p.Baseline.Language(l.ID); old != nil {
			out = append(out, LanguagePair{Now: l, Before: old})
		}
	}
	return out
}

// ReportValue is ReportLine for a finding about value of the closed set
// whose section is titled section in the closed-sets guide g of Language
// lang: a build from source (Input.LocateValue) places it at the value's
// definition, where the author changes it; the cap counts it in the
// file of the guide, the build's own.
func (p *Pass) ReportValue(g *Guide, line int, lang, section, value, message, hint string, related ...report.Location) {
	f := p.report(p.rule.Severity, g.Pointer()+"/body", false, bodyLine(g, line, message), hint)
	if f == nil {
		return
	}
	f.Related = related
	if p.In.LocateValue != nil {
		if file, l, col, ok := p.In.LocateValue(lang, section, value); ok {
			// Placed at the value's own statement, the finding no longer
			// names the line of a guide the author never wrote.
			f.File, f.Line, f.Column, f.EndLine, f.EndColumn = file, l, col, 0, 0
			f.Message = message
		}
	}
}

// ReportLine records a finding inside a guide body: line is 1-based within
// the body. JSON strings cannot point inside themselves, so the finding
// points at the body member and names the line in the message. related
// are other places the finding involves (the baseline's guide).
func (p *Pass) ReportLine(g *Guide, line int, message, hint string, related ...report.Location) {
	p.ReportRelated(p.rule.Severity, g.Pointer()+"/body", bodyLine(g, line, message), hint, related...)
}

// bodyLine is message about line of g's body, which names the line since
// a pointer cannot.
func bodyLine(g *Guide, line int, message string) string {
	return "guide " + report.Quote(g.ID) + ", body line " + strconv.Itoa(line) + ": " + message
}
