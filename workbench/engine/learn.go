package engine

import (
	"context"
	"fmt"

	"github.com/yuin/goldmark/ast"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/guidemd"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/language"
	"github.com/pilotage-dev/pilotage/workbench/service"
)

// Learn returns the guide index or one guide (§6.2); with a topic, the
// part of the body under the heading whose slug is the topic
// (data-model.md §5.2), or the whole closed-sets guide for its reserved
// topic (reading 15).
func (e *Engine) Learn(ctx context.Context, c service.Caller, languageID string, req pilotage.LearnRequest) (any, error) {
	_, l, err := e.language(languageID)
	if err != nil {
		return nil, err
	}
	if req.ID == nil {
		if req.Topic != nil {
			return nil, invalid("a topic needs the id of its guide")
		}
		idx := &pilotage.LearnIndex{Guides: []pilotage.Guide{}}
		for _, g := range l.Guides {
			idx.Guides = append(idx.Guides, wireGuide(g, g.Body).Index())
		}
		return idx, nil
	}
	var g *language.Guide
	for _, x := range l.Guides {
		if x.ID == *req.ID {
			g = x
		}
	}
	if g == nil {
		return nil, &pilotage.RequestError{Kind: pilotage.ErrNotFound, Message: fmt.Sprintf("no guide %q; the index form (no id) lists them", report.Clip(*req.ID))}
	}
	if req.Topic == nil {
		return &pilotage.LearnFetch{Guide: wireGuide(g, g.Body)}, nil
	}
	if !l.caps.HasSub(pilotage.CapGuides, pilotage.SubTopicFetch) {
		return nil, unsupported("Language %s does not declare guides.topic_fetch; fetch the whole guide", l.ID)
	}
	topic := *req.Topic
	if topic == pilotage.TopicClosedSets && contains(g.Topics, pilotage.TopicClosedSets) {
		return &pilotage.LearnFetch{Guide: wireGuide(g, g.Body)}, nil
	}
	body, ok := topicSection(g.Body, topic)
	if !ok {
		return nil, &pilotage.RequestError{Kind: pilotage.ErrNotFound, Message: fmt.Sprintf("guide %q has no topic %q", report.Clip(g.ID), report.Clip(topic))}
	}
	return &pilotage.LearnFetch{Guide: wireGuide(g, body)}, nil
}

func wireGuide(g *language.Guide, body string) pilotage.Guide {
	w := g.Guide
	w.SizeBytes = len(body)
	w.Body = &body
	return w
}

// topicSection returns the section of a Markdown body whose heading is
// the topic (guidemd's slug rule, the one lint checks topics with): from
// its heading to the next heading of the same or a higher level.
func topicSection(body, topic string) (string, bool) {
	src := []byte(body)
	doc, err := guidemd.Parse(src)
	if err != nil {
		return "", false
	}
	type head struct{ level, start int }
	var heads []head
	var hit = -1
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		h, ok := n.(*ast.Heading)
		if !ok || h.Lines().Len() == 0 {
			continue
		}
		start := h.Lines().At(0).Start
		for start > 0 && src[start-1] != '\n' {
			start--
		}
		heads = append(heads, head{h.Level, start})
		if hit < 0 && guidemd.Slug(guidemd.HeadingText(h, src)) == topic {
			hit = len(heads) - 1
		}
	}
	if hit < 0 {
		return "", false
	}
	end := len(src)
	for _, h := range heads[hit+1:] {
		if h.level <= heads[hit].level {
			end = h.start
			break
		}
	}
	return string(src[heads[hit].start:end]), true
}
