package rules

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/guidemd"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/lint"
)

// guideTopics checks what a topic fetch (§6.2) needs when
// guides.topic_fetch is declared: topic t of a Markdown guide is the
// section whose heading, lower-cased with spaces as '-', reads t
// (data-model.md §5.2), so every topic a guide lists names a heading of
// its body. The reserved topic closed-sets names the whole guide
// (reading 15). A listed topic without a heading is advertised in the
// index and cannot be fetched.
var guideTopics = &lint.Rule{
	ID:       "guide-topics",
	Category: lint.CatGuides,
	Section:  "6.2",
	Severity: report.Warning,
	Summary:  "When `guides.topic_fetch` is declared, every topic a Markdown guide lists should name one of its headings, so the topic can be fetched.",
	Check: func(p *lint.Pass) {
		for _, l := range p.Languages {
			if !l.Caps.HasSub(pilotage.CapGuides, pilotage.SubTopicFetch) {
				continue
			}
			for _, g := range l.Guides {
				if !g.HasBody || !isMarkdown(g) || !listsTopics(g) {
					continue
				}
				doc, err := guidemd.Parse([]byte(g.Body))
				if err != nil {
					p.Report(g.Pointer()+"/body", fmt.Sprintf("%s is not parsed (%v), so its topics cannot be checked", guideLabel(g), err),
						"split the guide into smaller ones")
					continue
				}
				headings := map[string]bool{}
				for _, t := range guidemd.Topics(doc, []byte(g.Body)) {
					headings[t] = true
				}
				for i, t := range g.Topics() {
					if t == "" || t == pilotage.TopicClosedSets || headings[t] {
						continue
					}
					hint := fmt.Sprintf("add a heading such as \"## %s\" over the section, or remove the topic", headingFor(t))
					if headings[guidemd.Slug(t)] {
						hint = fmt.Sprintf("a topic id is its heading lower-cased with spaces as '-': write %q", report.Clip(guidemd.Slug(t)))
					}
					p.Report(g.Pointer()+"/topics/"+strconv.Itoa(i),
						fmt.Sprintf("%s lists the topic %q, but no heading of its body reads %q once lower-cased with spaces as '-', so a topic fetch of it finds nothing", guideLabel(g), report.Clip(t), report.Clip(t)),
						hint)
				}
			}
		}
	},
}

// listsTopics reports whether the guide lists a topic other than the
// reserved one, which names the whole guide.
func listsTopics(g *lint.Guide) bool {
	for _, t := range g.Topics() {
		if t != "" && t != pilotage.TopicClosedSets {
			return true
		}
	}
	return false
}

// headingFor turns a topic id back into heading text: "first-program"
// becomes "First program".
func headingFor(topic string) string {
	h := strings.ReplaceAll(topic, "-", " ")
	r, size := utf8.DecodeRuneInString(h)
	return string(unicode.ToUpper(r)) + h[size:]
}

func init() { register(guideTopics) }
