package conform

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pilotage-dev/pilotage/internal/model/binding"
)

// fake is a small go-sdk server that publishes a snapshot file
// (docs/snapshot.md) through the binding: discover returns its manifest,
// learn its guides, lookup its catalog in pages. Validate, execute and
// trace know no program and no run. Served as is, it conforms; each knob
// breaks one thing, so tests can check that conform finds exactly it.
type fake struct {
	snap struct {
		Manifest struct {
			Languages []struct {
				ID      string `json:"id"`
				Guides  string `json:"guides"`
				Catalog string `json:"catalog"`
				Loop    map[string]string
			} `json:"languages"`
		} `json:"manifest"`
		Guides  map[string][]map[string]any `json:"guides"`
		Catalog map[string]struct {
			CatalogVersion any   `json:"catalog_version"`
			Items          []any `json:"items"`
		} `json:"catalog"`
	}
	manifest json.RawMessage
	// extension is the settings initialize declares (an object, or
	// something else to break it); nil declares no extension.
	extension any
	pageSize  int
	// skip leaves tools unpublished; noOutput publishes them without an
	// outputSchema.
	skip, noOutput     map[string]bool
	noManifestResource bool
	// arrayResult answers arguments that are not an object with a tool
	// result instead of a JSON-RPC error.
	arrayResult bool
	// answer, when set, may replace a tool's answer (or block).
	answer func(ctx context.Context, tool string, args map[string]any, res *mcp.CallToolResult) (*mcp.CallToolResult, error)
	// cursor makes the next_cursor of page n (1-based) of a lookup list,
	// "" for the last; nil pages the catalog by pageSize.
	cursor func(n int) string
}

func newFake(t testing.TB, snapshotFile string) *fake {
	t.Helper()
	f := &fake{extension: binding.ExtensionSettings(), pageSize: 2, skip: map[string]bool{}, noOutput: map[string]bool{}}
	src := readFile(t, snapshotFile)
	var whole struct {
		Manifest json.RawMessage `json:"manifest"`
	}
	if err := json.Unmarshal(src, &whole); err != nil {
		t.Fatal(err)
	}
	f.manifest = whole.Manifest
	if err := json.Unmarshal(src, &f.snap); err != nil {
		t.Fatal(err)
	}
	return f
}

// server builds the go-sdk server; call it after setting the knobs.
func (f *fake) server() *mcp.Server {
	caps := &mcp.ServerCapabilities{}
	if f.extension != nil {
		caps.Extensions = map[string]any{binding.ExtensionID: f.extension}
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "fake", Version: "1"}, &mcp.ServerOptions{Capabilities: caps})
	object := map[string]any{"type": "object"}
	add := func(name string, h func(map[string]any) (any, string)) {
		if f.skip[name] {
			return
		}
		tool := &mcp.Tool{Name: name, InputSchema: object, OutputSchema: object}
		if f.noOutput[name] {
			tool.OutputSchema = nil
		}
		s.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args map[string]any
			if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
				if f.arrayResult {
					return &mcp.CallToolResult{StructuredContent: map[string]any{}, Content: []mcp.Content{&mcp.TextContent{Text: "{}"}}}, nil
				}
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "arguments must be an object"}
			}
			v, kind := h(args)
			if kind != "" {
				v = map[string]any{"error": map[string]any{"kind": kind, "message": fmt.Sprint(v)}}
			}
			raw, _ := json.Marshal(v)
			res := &mcp.CallToolResult{IsError: kind != "", StructuredContent: json.RawMessage(raw),
				Content: []mcp.Content{&mcp.TextContent{Text: string(raw)}}}
			if f.answer != nil {
				return f.answer(ctx, name, args, res)
			}
			return res, nil
		})
	}
	settings, _ := f.extension.(map[string]any)
	discover, _ := settings["discover"].(string)
	if discover == "" {
		discover = binding.DiscoverTool
	}
	add(discover, func(map[string]any) (any, string) { return f.manifest, "" })
	for _, l := range f.snap.Manifest.Languages {
		add(l.Guides, func(args map[string]any) (any, string) { return f.learn(l.ID, args) })
		if l.Catalog != "" {
			add(l.Catalog, func(args map[string]any) (any, string) { return f.lookup(l.ID, args) })
		}
		for _, op := range []string{"validate", "execute", "trace"} {
			if l.Loop[op] != "" {
				add(l.Loop[op], func(map[string]any) (any, string) { return "this fake runs nothing", "not_found" })
			}
		}
	}
	if !f.noManifestResource {
		s.AddResource(&mcp.Resource{URI: binding.ManifestURI, Name: "manifest", MIMEType: binding.JSONMediaType},
			func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: binding.ManifestURI, Text: string(f.manifest)}}}, nil
			})
	}
	return s
}

func (f *fake) learn(lang string, args map[string]any) (any, string) {
	id, _ := args["id"].(string)
	if id == "" {
		var index []map[string]any
		for _, g := range f.snap.Guides[lang] {
			entry := map[string]any{}
			for k, v := range g {
				if k != "body" {
					entry[k] = v
				}
			}
			index = append(index, entry)
		}
		return map[string]any{"guides": index}, ""
	}
	for _, g := range f.snap.Guides[lang] {
		if g["id"] == id {
			return map[string]any{"guide": g}, ""
		}
	}
	return "no guide " + id, "not_found"
}

func (f *fake) lookup(lang string, args map[string]any) (any, string) {
	cat := f.snap.Catalog[lang]
	switch args["verb"] {
	case "changed_since":
		// The fake keeps no earlier catalog to compare with.
		return "no baseline", "unknown_baseline"
	case "list":
	default:
		return "no entry", "not_found"
	}
	n := 1
	if c, ok := args["cursor"].(string); ok {
		n, _ = strconv.Atoi(c)
	}
	page := map[string]any{"catalog_version": cat.CatalogVersion}
	if f.cursor != nil {
		page["items"] = []any{}
		if next := f.cursor(n); next != "" {
			page["next_cursor"] = next
		}
		return page, ""
	}
	start := min((n-1)*f.pageSize, len(cat.Items))
	end := min(start+f.pageSize, len(cat.Items))
	page["items"] = cat.Items[start:end]
	if end < len(cat.Items) {
		page["next_cursor"] = strconv.Itoa(n + 1)
	}
	return page, ""
}
