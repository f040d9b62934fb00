package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net/url"
	"slices"
	"sort"
	"strings"
)

// jsonReport is the stable json contract.
type jsonReport struct {
	Findings []Finding `json:"findings"`
	Summary  Summary   `json:"summary"`
}

// jsonWriter writes the json report a finding at a time, byte for byte
// what json.MarshalIndent makes of a jsonReport: the findings array opens
// with the writer, each finding is indented as an element of it, and end
// closes it with the summary. Every finding carries its sections list,
// even of one section, so a consumer reads one member whatever the rule
// (issue 10: findings cite "a sections list in JSON output").
type jsonWriter struct {
	bw *bufio.Writer
	n  int // findings written
}

func newJSONWriter(w io.Writer) *jsonWriter {
	j := &jsonWriter{bw: bufio.NewWriter(w)}
	j.bw.WriteString("{\n  \"findings\": [")
	return j
}

func (j *jsonWriter) finding(f Finding) error {
	f.Sections = f.AllSections()
	b, err := json.MarshalIndent(f, "    ", "  ")
	if err != nil {
		return err
	}
	if j.n > 0 {
		j.bw.WriteByte(',')
	}
	j.n++
	j.bw.WriteString("\n    ")
	_, err = jsonControls.WriteString(j.bw, string(b))
	return err
}

func (j *jsonWriter) end(r *Report) error {
	b, err := json.MarshalIndent(r.Summary, "  ", "  ")
	if err != nil {
		return err
	}
	if j.n > 0 {
		j.bw.WriteString("\n  ")
	}
	j.bw.WriteString("],\n  \"summary\": ")
	jsonControls.WriteString(j.bw, string(b))
	j.bw.WriteString("\n}\n")
	return j.bw.Flush()
}

// jsonControls escapes, in indented JSON, DEL, the C1 controls, the
// bidirectional formatting characters and the invisible ones as well
// (\u007f, \u0085, \u202e, \ufeff): encoding/json escapes only the C0
// ones, and a report shown with cat must not drive a terminal either
// (visible.go). Those characters can only be inside strings, where the
// escape stands for the same character, so decoders read the same data.
var jsonControls = func() *strings.Replacer {
	var pairs []string
	for r := rune(0x7f); r <= 0xfeff; r++ { // U+FEFF is the last isControl rune
		if isControl(r) {
			pairs = append(pairs, string(r), fmt.Sprintf(`\u%04x`, r))
		}
	}
	return strings.NewReplacer(pairs...)
}()

// githubEscape escapes a workflow-command message (%, LF); a CR, like
// every control but newline and tab, is already shown as \x0d (visible).
var githubEscape = strings.NewReplacer("%", "%25", "\n", "%0A")

// githubEscapeProp escapes a workflow-command property, which also may not
// contain ':' or ','.
var githubEscapeProp = strings.NewReplacer("%", "%25", "\n", "%0A", ":", "%3A", ",", "%2C")

// githubWriter prints one GitHub Actions annotation per finding.
type githubWriter struct{ bw *bufio.Writer }

func (g githubWriter) finding(f Finding) error {
	if f.Suppressed() {
		return nil
	}
	f = f.visible()
	cmd := "notice"
	switch f.Severity {
	case Error:
		cmd = "error"
	case Warning:
		cmd = "warning"
	}
	props := []string{"file=" + githubEscapeProp.Replace(f.File)}
	if f.Line > 0 {
		props = append(props, fmt.Sprintf("line=%d", f.Line), fmt.Sprintf("col=%d", f.Column))
	}
	if f.EndLine > 0 {
		props = append(props, fmt.Sprintf("endLine=%d", f.EndLine), fmt.Sprintf("endColumn=%d", f.EndColumn))
	}
	props = append(props, "title="+githubEscapeProp.Replace(f.Rule+" ("+f.cited()+")"))
	msg := f.Message
	if f.Hint != "" {
		msg += "\nhint: " + f.Hint
	}
	_, err := fmt.Fprintf(g.bw, "::%s %s::%s\n", cmd, strings.Join(props, ","), githubEscape.Replace(msg))
	return err
}

func (g githubWriter) end(*Report) error { return g.bw.Flush() }

// SARIF 2.1.0, the subset GitHub code scanning reads.
type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool sarifTool `json:"tool"`
	// ColumnKind says columns count characters, as every writer's do;
	// without it consumers assume UTF-16 code units.
	ColumnKind string        `json:"columnKind"`
	Results    []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	InformationURI string      `json:"informationUri,omitempty"`
	Rules          []sarifRule `json:"rules"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifRule struct {
	ID                   string            `json:"id"`
	ShortDescription     sarifText         `json:"shortDescription"`
	FullDescription      sarifText         `json:"fullDescription"`
	Help                 sarifText         `json:"help"`
	DefaultConfiguration sarifRuleConfig   `json:"defaultConfiguration"`
	Properties           map[string]string `json:"properties,omitempty"`
}

type sarifRuleConfig struct {
	Level string `json:"level"`
}

type sarifResult struct {
	RuleID           string             `json:"ruleId"`
	RuleIndex        int                `json:"ruleIndex"`
	Level            string             `json:"level"`
	Message          sarifText          `json:"message"`
	Locations        []sarifLocation    `json:"locations"`
	RelatedLocations []sarifLocation    `json:"relatedLocations,omitempty"`
	Suppressions     []sarifSuppression `json:"suppressions,omitempty"`
	// Properties carry the finding's section and its sections, as json
	// does: the rule's section is only its default.
	Properties sarifResultProperties `json:"properties"`
}

// sarifSuppression is SARIF 2.1.0 §3.35: kind inSource or external, the
// reason as justification, the comment or entry as location.
type sarifSuppression struct {
	Kind          string         `json:"kind"`
	Justification string         `json:"justification,omitempty"`
	Location      *sarifLocation `json:"location,omitempty"`
}

type sarifResultProperties struct {
	Section  string   `json:"section"`
	Sections []string `json:"sections"`
}

type sarifLocation struct {
	ID               int           `json:"id,omitempty"`
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
	Message          *sarifText    `json:"message,omitempty"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
	EndLine     int `json:"endLine,omitempty"`
	EndColumn   int `json:"endColumn,omitempty"`
}

func sarifLevel(s Severity) string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	}
	return "note"
}

// sarifWriter writes a sarif log a result at a time, byte for byte what
// json.MarshalIndent makes of the whole sarifLog, escaped by
// jsonControls. The log opens with its rule table, which
// must list every rule a result names (the report's rules and those of
// findings it does not describe) and gives each result its ruleIndex, so
// the results are held (a spool: in memory, past spoolMemory findings
// in a temporary file) until end writes the table and then them: a
// Stream of many files holds the rule IDs seen, not the findings.
type sarifWriter struct {
	w                 io.Writer
	includeSuppressed bool
	held              *spool
	// seen describes the rule of each finding by its first, in order: a
	// rule the report does not describe at its end (its Rules may grow
	// while a Stream writes: lint's PDL rules join them when a PDL file
	// is read) still needs an entry.
	seen  []RuleInfo
	known map[string]bool
}

func newSARIFWriter(w io.Writer, includeSuppressed bool, held *spool) *sarifWriter {
	return &sarifWriter{w: w, includeSuppressed: includeSuppressed, held: held, known: map[string]bool{}}
}

func (s *sarifWriter) finding(f Finding) error {
	if f.Suppressed() && !s.includeSuppressed {
		return nil
	}
	if !s.known[f.Rule] {
		s.known[f.Rule] = true
		s.seen = append(s.seen, RuleInfo{ID: f.Rule, Section: f.Section, Severity: f.Severity, Summary: f.Rule})
	}
	return s.held.add(f)
}

func (s *sarifWriter) end(r *Report) error {
	defer s.held.close()
	rules := slices.Clone(r.Rules)
	for _, ri := range s.seen {
		if !slices.ContainsFunc(r.Rules, func(d RuleInfo) bool { return d.ID == ri.ID }) {
			rules = append(rules, ri)
		}
	}
	sort.Slice(rules, func(i, j int) bool { return rules[i].ID < rules[j].ID })
	index := map[string]int{}
	driver := sarifDriver{Name: "pilotage", InformationURI: "https://pilotage.dev", Rules: []sarifRule{}}
	for i, ri := range rules {
		index[ri.ID] = i
		help := source(ri.Section) + "."
		if ri.Doc != "" {
			help += " See " + ri.Doc + "."
		}
		driver.Rules = append(driver.Rules, sarifRule{
			ID:                   ri.ID,
			ShortDescription:     sarifText{Text: ri.Summary},
			FullDescription:      sarifText{Text: ri.Summary + " (" + CiteAll(ri.AllSections()) + ")"},
			Help:                 sarifText{Text: help},
			DefaultConfiguration: sarifRuleConfig{Level: sarifLevel(ri.Severity)},
			Properties:           map[string]string{"category": ri.Category, "section": ri.Section},
		})
	}
	log, err := json.MarshalIndent(sarifLog{
		Schema:  "https://json.schemastore.org/sarif-2.1.0.json",
		Version: "2.1.0",
		Runs:    []sarifRun{{Tool: sarifTool{Driver: driver}, ColumnKind: "unicodeCodePoints", Results: []sarifResult{}}},
	}, "", "  ")
	if err != nil {
		return err
	}
	// The log of no result ends with its empty results array, the last
	// member of the one run: the results are written into it. The
	// member's name cannot be inside a string, where its quotes would be
	// escaped.
	const empty = `"results": []`
	at := bytes.LastIndex(log, []byte(empty)) + len(empty) - 1
	bw := bufio.NewWriter(s.w)
	jsonControls.WriteString(bw, string(log[:at]))
	n := 0
	err = s.held.each(func(f Finding) error {
		b, err := json.MarshalIndent(sarifResultOf(f, index[f.Rule]), "        ", "  ")
		if err != nil {
			return err
		}
		if n > 0 {
			bw.WriteByte(',')
		}
		n++
		bw.WriteString("\n        ")
		_, err = jsonControls.WriteString(bw, string(b))
		return err
	})
	if err != nil {
		return err
	}
	if n > 0 {
		bw.WriteString("\n      ")
	}
	jsonControls.WriteString(bw, string(log[at:])+"\n")
	return bw.Flush()
}

// sarifResultOf is f as a sarif result of the rule at index in the rule
// table.
func sarifResultOf(f Finding, index int) sarifResult {
	msg := f.Message
	if f.Hint != "" {
		msg += " Hint: " + f.Hint
	}
	loc := sarifPhysical{ArtifactLocation: sarifArtifact{URI: toURI(f.File)}}
	if f.Line > 0 {
		loc.Region = &sarifRegion{StartLine: f.Line, StartColumn: f.Column, EndLine: f.EndLine, EndColumn: f.EndColumn}
	}
	var related []sarifLocation
	for i, rel := range f.Related {
		rl := sarifAt(rel)
		rl.ID = i + 1
		related = append(related, rl)
	}
	var sups []sarifSuppression
	for _, s := range f.Suppressions {
		at := sarifAt(s.Location)
		sups = append(sups, sarifSuppression{Kind: s.Kind, Justification: s.Justification, Location: &at})
	}
	return sarifResult{
		RuleID: f.Rule, RuleIndex: index, Level: sarifLevel(f.Severity),
		Message:          sarifText{Text: msg},
		Locations:        []sarifLocation{{PhysicalLocation: loc}},
		RelatedLocations: related,
		Suppressions:     sups,
		Properties:       sarifResultProperties{Section: f.Section, Sections: f.AllSections()},
	}
}

// sarifAt is a location other than the result's own: a related place
// or where a suppression was given.
func sarifAt(l Location) sarifLocation {
	rl := sarifLocation{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifact{URI: toURI(l.File)}}}
	if l.Line > 0 {
		rl.PhysicalLocation.Region = &sarifRegion{StartLine: l.Line, StartColumn: l.Column}
	}
	if l.Note != "" {
		rl.Message = &sarifText{Text: l.Note}
	}
	return rl
}

// toURI makes a URI reference of a file name: slash-separated, relative
// names stay relative (with "./" when the first segment holds a ':', which
// would otherwise read as a scheme), absolute names become file: URIs, and
// characters a URI cannot hold are percent-encoded. "-" (standard input)
// becomes "stdin".
func toURI(file string) string {
	if file == "-" || file == "" {
		return "stdin"
	}
	p := strings.ReplaceAll(file, "\\", "/")
	if len(p) > 2 && p[1] == ':' && p[2] == '/' && ('A' <= p[0] && p[0] <= 'Z' || 'a' <= p[0] && p[0] <= 'z') { // C:/…
		p = "/" + p
	}
	u := url.URL{Path: p}
	if strings.HasPrefix(p, "/") {
		u.Scheme = "file"
	}
	return u.String()
}

// JUnit XML: one test case per input file, failing when the file has an
// error finding, or with strict a warning.
type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// junitWriter writes one test case per file: the inputs in their order,
// then the other files findings are in, in the order of their first. The
// suite opens with its count of failing cases, so the findings are held
// (a spool, as sarif's) by file, with each file's counts, until end
// writes the suite and then each case, built from its file's findings.
// Suppressed findings are not shown.
type junitWriter struct {
	w      io.Writer
	strict bool
	held   *spool
	files  map[string]*junitFile
	// named are the files findings are in that are not inputs, in order.
	named []string
}

// junitFile is what junitWriter holds of a file: where its findings are
// in the spool and whether its case fails.
type junitFile struct {
	parts  []spoolPart
	failed bool
}

func newJUnitWriter(w io.Writer, r *Report, strict bool, held *spool) *junitWriter {
	j := &junitWriter{w: w, strict: strict, held: held, files: map[string]*junitFile{}}
	for _, f := range r.Files {
		j.files[f] = &junitFile{}
	}
	return j
}

func (j *junitWriter) finding(f Finding) error {
	if f.Suppressed() {
		return nil
	}
	jf := j.files[f.File]
	if jf == nil {
		jf = &junitFile{}
		j.files[f.File] = jf
		j.named = append(j.named, f.File)
	}
	jf.failed = jf.failed || j.fails(f)
	// Findings come by file: a file's next one most often continues the
	// part held last.
	part, err := j.held.addTo(f, lastOf(jf.parts))
	if err != nil {
		return err
	}
	if len(jf.parts) == 0 || jf.parts[len(jf.parts)-1] != part {
		jf.parts = append(jf.parts, part)
	}
	return nil
}

// fails reports whether f fails its file's case.
func (j *junitWriter) fails(f Finding) bool {
	return f.Severity == Error || f.Severity == Warning && j.strict
}

func lastOf(ps []spoolPart) spoolPart {
	if len(ps) == 0 {
		return -1
	}
	return ps[len(ps)-1]
}

func (j *junitWriter) end(r *Report) error {
	defer j.held.close()
	files := append(slices.Clip(r.Files), j.named...)
	suite := junitSuite{Name: r.Tool, Tests: len(files), Cases: []junitCase{}}
	for _, f := range files {
		if j.files[f].failed {
			suite.Failures++
		}
	}
	// The suite of no case is written whole; the cases are written
	// into it, each as its element of the whole would be.
	var head bytes.Buffer
	head.WriteString(xml.Header)
	enc := xml.NewEncoder(&head)
	enc.Indent("", "  ")
	if err := enc.Encode(junitSuites{Suites: []junitSuite{suite}}); err != nil {
		return err
	}
	const empty = "></testsuite>"
	at := bytes.LastIndex(head.Bytes(), []byte(empty)) + 1
	bw := bufio.NewWriter(j.w)
	if len(files) == 0 {
		bw.Write(head.Bytes())
	} else {
		bw.Write(head.Bytes()[:at])
	}
	for _, file := range files {
		var fs []Finding
		for _, p := range j.files[file].parts {
			if err := j.held.part(p, func(f Finding) error { fs = append(fs, f); return nil }); err != nil {
				return err
			}
		}
		// An encoder of its own starts each case on the line written
		// here, indented as an element of the suite.
		bw.WriteByte('\n')
		enc := xml.NewEncoder(bw)
		enc.Indent("    ", "  ")
		if err := enc.EncodeElement(junitCaseOf(r.Tool, file, fs, j.strict), xml.StartElement{Name: xml.Name{Local: "testcase"}}); err != nil {
			return err
		}
	}
	if len(files) > 0 {
		bw.WriteString("\n  ")
		bw.Write(head.Bytes()[at:])
	}
	bw.WriteString("\n")
	return bw.Flush()
}

// junitCaseOf is the test case of file, whose findings are fs.
func junitCaseOf(tool, file string, fs []Finding, strict bool) junitCase {
	c := junitCase{Name: visible(file), Classname: tool}
	var fails, others []string
	var errs, warns int
	for _, f := range fs {
		f = f.visible()
		line := fmt.Sprintf("%s: %s: %s [%s %s]", location(f), f.Severity, f.Message, f.Rule, f.cited())
		switch {
		case f.Severity == Error:
			errs++
			fails = append(fails, line)
		case f.Severity == Warning && strict:
			warns++
			fails = append(fails, line)
		default:
			others = append(others, line)
		}
	}
	if len(fails) > 0 {
		msg, typ := Count(errs, "error"), "error"
		switch {
		case warns > 0 && errs == 0:
			msg, typ = Count(warns, "warning"), "warning"
		case warns > 0:
			msg += ", " + Count(warns, "warning")
		}
		c.Failure = &junitFailure{Message: msg, Type: typ, Text: strings.Join(fails, "\n")}
	}
	if len(others) > 0 {
		c.SystemOut = strings.Join(others, "\n")
	}
	return c
}
