package conform

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/binding"
)

// The requests of the MCP handshake, as findings name them.
const (
	opDiscover   = "server/discover"
	opInitialize = "initialize"
)

// extensionPointer locates the extension's settings in the initialize
// result.
var extensionPointer = "/capabilities/extensions/" + strings.ReplaceAll(binding.ExtensionID, "/", "~1")

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
// stop at a cursor loop, which a hostile server can make endless. It is
// nil when a page was not answered: what the list lacks is then unknown,
// so the checks that look for a name in it do not run.
func listAll[T any](c *checker, op string, page func(ctx context.Context, cursor string) ([]T, string, error), key func(T) string) map[string]T {
	out := map[string]T{}
	if !c.pages(op, func(ctx context.Context, cursor string) (string, error) {
		items, next, err := page(ctx, cursor)
		for _, it := range items {
			out[key(it)] = it
		}
		return next, err
	}) {
		return nil
	}
	return out
}

// pages follows an MCP list's cursors: at most MaxPages pages, stopping
// at a cursor seen before. It reports whether every page asked for was
// answered.
func (c *checker) pages(op string, page func(ctx context.Context, cursor string) (string, error)) bool {
	seen := map[string]bool{}
	cursor := ""
	for n := 0; ; n++ {
		if n == c.opt.MaxPages {
			c.find(RuleReadBounds, op, "/nextCursor", "still more pages after %d (--max-pages); the rest was not read", n)
			return true
		}
		var next string
		_, err := c.request(func(ctx context.Context) (*mcp.CallToolResult, error) {
			var err error
			next, err = page(ctx, cursor)
			return nil, err
		})
		if err != nil {
			c.fail(RuleOperationAnswers, op, "", err, "")
			return false
		}
		if next == "" {
			return true
		}
		if seen[next] {
			c.find(RuleLookupPaging, op, "/nextCursor", "nextCursor %q was returned before: the cursors loop", report.Clip(next))
			return true
		}
		seen[next] = true
		cursor = next
	}
}
