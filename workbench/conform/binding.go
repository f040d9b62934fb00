package conform

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/model/binding"
)

const opInitialize = "initialize"

// extension checks the extension declaration of the initialize result
// (binding.md) and the major version (§11.1). It returns the discover
// tool's name; declared is false when initialize does not name the
// extension at all (see undeclared), and ok false when Pilotage must not
// be used with the server.
func (c *checker) extension() (discover string, declared, ok bool) {
	caps := c.cs.InitializeResult().Capabilities
	ptr := extensionPointer
	var raw any
	if caps != nil {
		raw = caps.Extensions[binding.ExtensionID]
	}
	if raw == nil {
		return binding.DiscoverTool, false, true
	}
	settings, isObject := raw.(map[string]any)
	if !isObject {
		c.find(RuleBindingExtension, opInitialize, ptr, "the extension's settings are %s, not an object (want %s)", compactJSON(raw), settingsJSON())
		return binding.DiscoverTool, true, true
	}
	discover, _ = settings["discover"].(string)
	if discover == "" {
		c.find(RuleBindingExtension, opInitialize, ptr+"/discover", "the extension names no discover tool (want %q)", binding.DiscoverTool)
		discover = binding.DiscoverTool
	} else if discover != binding.DiscoverTool {
		c.find(RuleBindingExtension, opInitialize, ptr+"/discover", "the discover tool is %q; the binding names it %q", discover, binding.DiscoverTool)
	}
	version, _ := settings["version"].(string)
	if version == "" {
		c.find(RuleBindingExtension, opInitialize, ptr+"/version", "the extension declares no version (want %q)", pilotage.Version)
		return discover, true, true
	}
	server, sok := major(version)
	client, _ := major(pilotage.Version)
	switch {
	case !sok:
		c.find(RuleBindingVersion, opInitialize, ptr+"/version", "version %q is not MAJOR.MINOR", version)
	case server > client:
		c.find(RuleBindingVersion, opInitialize, ptr+"/version", "the server speaks Pilotage %s, a major version above this client's %s; a client must not use Pilotage with it, so conform stops here", version, pilotage.Version)
		return discover, true, false
	}
	return discover, true, true
}

// extensionPointer locates the extension's settings in the initialize
// result.
var extensionPointer = "/capabilities/extensions/" + strings.ReplaceAll(binding.ExtensionID, "/", "~1")

// undeclared reports a server whose initialize result does not name the
// extension, and returns whether to check it as a Pilotage server anyway.
// Most such servers are plain MCP servers (the everything or memory
// servers of the MCP project): they get one finding saying so, what was
// looked for, and nothing else, rather than a finding per Pilotage tool
// they never meant to publish. A server that publishes the discover tool
// is a Pilotage server that forgot its declaration, and is checked on.
// tools is what tools/list listed, nil for a server without tools.
func (c *checker) undeclared(tools map[string]*mcp.Tool) bool {
	want := fmt.Sprintf("want %q: %s", binding.ExtensionID, settingsJSON())
	if _, ok := tools[binding.DiscoverTool]; ok {
		c.find(RuleBindingExtension, opInitialize, extensionPointer, "the initialize result does not declare the Pilotage extension in capabilities.extensions (%s), though tools/list lists %s; checked as a Pilotage server", want, binding.DiscoverTool)
		return true
	}
	caps := c.cs.InitializeResult().Capabilities
	has := "it declares none"
	if caps != nil && len(caps.Extensions) > 0 {
		has = "it declares only " + someOf(slices.Sorted(maps.Keys(caps.Extensions)))
	}
	tool := "tools/list lists no tool " + binding.DiscoverTool
	if caps == nil || caps.Tools == nil {
		tool = "it declares no tools capability"
	}
	c.find(RuleBindingExtension, opInitialize, extensionPointer, "not a Pilotage server: the initialize result does not declare the Pilotage extension in capabilities.extensions (%s; %s), and %s; nothing else was checked", want, has, tool)
	return false
}

func settingsJSON() string {
	return compactJSON(binding.ExtensionSettings())
}

// compactJSON is v as JSON for a message, shortened.
func compactJSON(v any) string {
	b, _ := json.Marshal(v)
	return compact(b)
}

// major is the major number of a MAJOR.MINOR version.
func major(v string) (int, bool) {
	var maj, min int
	var rest string
	n, _ := fmt.Sscanf(v, "%d.%d%s", &maj, &min, &rest)
	return maj, n == 2 && maj >= 0 && fmt.Sprintf("%d.%d", maj, min) == v
}

// listTools reads tools/list, following cursors within MaxPages.
func (c *checker) listTools() map[string]*mcp.Tool {
	return listAll(c, "tools/list", func(ctx context.Context, cursor string) ([]*mcp.Tool, string, error) {
		res, err := c.cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return res.Tools, res.NextCursor, nil
	}, func(t *mcp.Tool) string { return t.Name })
}

// listResources reads resources/list, following cursors within MaxPages.
func (c *checker) listResources() map[string]*mcp.Resource {
	return listAll(c, "resources/list", func(ctx context.Context, cursor string) ([]*mcp.Resource, string, error) {
		res, err := c.cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return res.Resources, res.NextCursor, nil
	}, func(r *mcp.Resource) string { return r.URI })
}

// listAll gathers every page of an MCP list (see pages) by key: the go-sdk
// client's own iterators (Tools, Resources) neither bound the pages nor
// stop at a cursor loop, which a hostile server can make endless.
func listAll[T any](c *checker, op string, page func(ctx context.Context, cursor string) ([]T, string, error), key func(T) string) map[string]T {
	out := map[string]T{}
	c.pages(op, func(ctx context.Context, cursor string) (string, error) {
		items, next, err := page(ctx, cursor)
		for _, it := range items {
			out[key(it)] = it
		}
		return next, err
	})
	return out
}

// pages follows an MCP list's cursors: at most MaxPages pages, stopping
// at a cursor seen before.
func (c *checker) pages(op string, page func(ctx context.Context, cursor string) (string, error)) {
	seen := map[string]bool{}
	cursor := ""
	for n := 0; ; n++ {
		if n == c.opt.MaxPages {
			c.find(RuleReadBounds, op, "/nextCursor", "still more pages after %d (--max-pages); the rest was not read", n)
			return
		}
		var next string
		_, err := c.request(func(ctx context.Context) (*mcp.CallToolResult, error) {
			var err error
			next, err = page(ctx, cursor)
			return nil, err
		})
		if err != nil {
			c.fail(RuleOperationAnswers, op, "", err, "")
			return
		}
		if next == "" {
			return
		}
		if seen[next] {
			c.find(RuleLookupPaging, op, "/nextCursor", "nextCursor %q was returned before: the cursors loop", next)
			return
		}
		seen[next] = true
		cursor = next
	}
}

// tools checks that every tool the manifest names is published with an
// object input and output schema (binding.md).
func (c *checker) tools(published map[string]*mcp.Tool, names []string) {
	for _, name := range names {
		t, ok := published[name]
		if !ok {
			c.find(RuleBindingTools, "tools/list", "/tools", "the manifest names the tool %q, but tools/list does not list it", name)
			continue
		}
		for _, s := range []struct {
			member string
			schema any
		}{{"inputSchema", t.InputSchema}, {"outputSchema", t.OutputSchema}} {
			m, _ := s.schema.(map[string]any)
			if m == nil || m["type"] != "object" {
				c.find(RuleBindingTools, "tools/list", "/tools", "tool %q has no object %s; every tool declares one so a generic client can call it", name, s.member)
			}
		}
	}
}

// resources checks the manifest resource against discover's manifest
// and the guide resources of each Language against its learn index.
// Guide resources are the project's addition to the shared binding
// (docs/binding.md), so a Language whose guides have none is fine; but
// once a server publishes one, a client may rely on them, so every guide
// of the index has one holding the body learn returns, and none names a
// guide the index lacks.
func (c *checker) resources(published map[string]*mcp.Resource, manifest json.RawMessage, guides map[string][]guide) {
	if _, ok := published[binding.ManifestURI]; !ok {
		c.find(RuleBindingResources, "resources/list", "/resources", "the manifest resource %s is not listed", binding.ManifestURI)
	} else if text, ok := c.readResource(binding.ManifestURI); ok && !sameJSON([]byte(text), manifest) {
		c.find(RuleBindingResources, "resources/read "+binding.ManifestURI, "/contents/0/text", "the manifest resource differs from the manifest pilotage_discover returned")
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
				c.find(RuleBindingResources, "resources/list", "/resources", "guide %q of %s has no resource %s, though the server publishes guide resources of %s", g.ID, lang, uri, lang)
				continue
			}
			if g.Body == nil {
				continue
			}
			if text, ok := c.readResource(uri); ok && text != *g.Body {
				c.find(RuleBindingResources, "resources/read "+uri, "/contents/0/text", "the guide resource differs from the body learn returns for guide %q", g.ID)
			}
		}
		for _, uri := range slices.Sorted(maps.Keys(extra)) {
			c.find(RuleBindingResources, "resources/list", "/resources", "resource %s names no guide of the learn index of %s", uri, lang)
		}
	}
}

// readResource reads a text resource; a failure is a finding.
func (c *checker) readResource(uri string) (string, bool) {
	op := "resources/read " + uri
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
