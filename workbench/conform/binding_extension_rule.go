package conform

import (
	"fmt"
	"maps"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/binding"
)

// RuleBindingExtension is the ID of the rule the checks cite as it.
const RuleBindingExtension = "binding-extension"

var _ = registry.Register(&report.RuleInfo{ID: RuleBindingExtension, Category: "binding", Section: bindingDoc, Severity: report.Error,
	Summary: `initialize declares capabilities.extensions["dev.pilotage/pilotage"] with a version and the discover tool.`})

// undeclared reports a server whose initialize result does not name the
// extension, and returns whether to check it as a Pilotage server anyway.
// Most such servers are plain MCP servers (the everything or memory
// servers of the MCP project): they get one finding saying so, what was
// looked for, and nothing else, rather than a finding per Pilotage tool
// they never meant to publish. A server that publishes the discover tool
// is a Pilotage server that forgot its declaration, and is checked on.
// tools is what tools/list listed, nil for a server without tools or
// when tools/list went unanswered.
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
	switch {
	case caps == nil || caps.Tools == nil:
		tool = "it declares no tools capability"
	case tools == nil:
		// listAll's nil: tools/list went unanswered (its own finding).
		tool = "tools/list did not answer, so whether it lists " + binding.DiscoverTool + " is unknown"
	}
	c.find(RuleBindingExtension, opInitialize, extensionPointer, "not a Pilotage server: the initialize result does not declare the Pilotage extension in capabilities.extensions (%s; %s), and %s; nothing else was checked", want, has, tool)
	return false
}

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
		c.find(RuleBindingExtension, opInitialize, ptr+"/discover", "the discover tool is %q; the binding names it %q", report.Clip(discover), binding.DiscoverTool)
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
		c.find(RuleBindingVersion, opInitialize, ptr+"/version", "version %q is not MAJOR.MINOR", report.Clip(version))
	case server > client:
		c.find(RuleBindingVersion, opInitialize, ptr+"/version", "the server speaks Pilotage %s, a major version above this client's %s; a client must not use Pilotage with it, so conform stops here", version, pilotage.Version)
		return discover, true, false
	}
	return discover, true, true
}
