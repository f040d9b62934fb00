package conform

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/binding"
)

// RuleBindingResources is the ID of the rule the checks cite as it.
const RuleBindingResources = "binding-resources"

var _ = registry.Register(&report.RuleInfo{ID: RuleBindingResources, Category: "binding", Section: bindingDoc, Severity: report.Error,
	Summary: "pilotage://manifest holds the manifest discover returns; when a Language's guides are published as resources, every guide of the learn index has one holding its body, and none names another guide."})

// resources checks the manifest resource against discover's manifest
// and the guide resources of each Language against its learn index.
// Guide resources are the project's addition to the shared binding
// (docs/binding.md), so a Language whose guides have none is fine; but
// once a server publishes one, a client may rely on them, so every guide
// of the index has one holding the body learn returns, and none names a
// guide the index lacks. published is nil when resources/list was not
// answered, and guides holds only the Languages whose guides were all
// read: what was not read is not compared.
func (c *checker) resources(published map[string]*mcp.Resource, manifest json.RawMessage, guides map[string][]guide) {
	if published == nil {
		return
	}
	if _, ok := published[binding.ManifestURI]; !ok {
		c.find(RuleBindingResources, "resources/list", "/resources", "the manifest resource %s is not listed", binding.ManifestURI)
	} else if text, ok := c.readResource(binding.ManifestURI); ok {
		op := "resources/read " + binding.ManifestURI
		c.badJSON(op, "/contents/0/text", []byte(text))
		if !sameJSON([]byte(text), manifest) {
			c.find(RuleBindingResources, op, "/contents/0/text", "the manifest resource differs from the manifest pilotage_discover returned")
		}
	}
	for lang, gs := range guides {
		prefix := binding.GuideURI(lang, "")
		// extra ends holding the guide resources no guide of the index
		// claimed.
		extra := map[string]bool{}
		for uri := range published {
			if strings.HasPrefix(uri, prefix) {
				extra[uri] = true
			}
		}
		if len(extra) == 0 {
			continue
		}
		for _, g := range gs {
			if g.ID == "" {
				// lint reports the guide without an id.
				continue
			}
			uri := binding.GuideURI(lang, g.ID)
			delete(extra, uri)
			if _, ok := published[uri]; !ok {
				c.find(RuleBindingResources, "resources/list", "/resources", "guide %q of %s has no resource %s, though the server publishes guide resources of %s", report.Clip(g.ID), report.Clip(lang), report.Clip(uri), report.Clip(lang))
				continue
			}
			if g.Body == nil {
				continue
			}
			if text, ok := c.readResource(uri); ok && text != *g.Body {
				c.find(RuleBindingResources, "resources/read "+uri, "/contents/0/text", "the guide resource differs from the body learn returns for guide %q", report.Clip(g.ID))
			}
		}
		for _, uri := range slices.Sorted(maps.Keys(extra)) {
			c.find(RuleBindingResources, "resources/list", "/resources", "resource %s names no guide of the learn index of %s", report.Clip(uri), report.Clip(lang))
		}
	}
}

// readResource reads a text resource; a failure is a finding.
func (c *checker) readResource(uri string) (string, bool) {
	op := "resources/read " + report.Clip(uri)
	var res *mcp.ReadResourceResult
	_, err := c.request(func(ctx context.Context) (*mcp.CallToolResult, error) {
		var err error
		res, err = c.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		return nil, err
	})
	switch {
	case err != nil:
		c.fail(RuleBindingResources, op, "", err, "")
	case len(res.Contents) != 1 || res.Contents[0] == nil:
		c.find(RuleBindingResources, op, "/contents", "%d contents, want 1", len(res.Contents))
	default:
		return res.Contents[0].Text, true
	}
	return "", false
}
