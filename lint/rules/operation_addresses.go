package rules

import (
	"fmt"

	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/binding"
	"github.com/pilotage-dev/pilotage/lint"
)

// operationAddresses checks the operation addresses of the Language
// entries against the project's MCP binding (binding.md, "One MCP tool per
// operation"), whose naming rule lives in internal/model/binding:
//
//   - error: an address names a tool that an earlier operation already
//     names (of the same Language or another, or the discovery tool),
//     since one MCP tool cannot serve two operations;
//   - error: two different Language ids map to one tool prefix, so
//     binding.md derives the same tool names for both; reported once, at
//     the second id, and the address collisions that follow from it are
//     not reported again;
//   - error: an address longer than MCP allows for a tool name
//     (binding.MaxTool, which go-sdk enforces by refusing to register the
//     tool), so no server can offer the operation under it;
//   - warning: an address that is not the name binding.md derives. The
//     manifest is what clients read, so it works, but it departs from the
//     binding every manifest `pilotage build` writes follows.
//
// A Language whose id repeats an earlier one is left out: every address
// of it would collide, and language-id-unique already reports the cause.
// Empty and non-string addresses are manifest-consistency's and the
// schema rule's business.
var operationAddresses = &lint.Rule{
	ID:       "operation-addresses",
	Category: lint.CatManifest,
	Section:  "binding.md",
	Severity: report.Error,
	Summary:  "Every operation address must name its own MCP tool, and should be the name binding.md derives: `<prefix>_<operation>`, the prefix being the Language id with every character outside `[A-Za-z0-9_-]` replaced by `_`; and no tool name may be longer than MCP's 128 bytes.",
	Check: func(p *lint.Pass) {
		// claims maps a tool name to the operation that named it first.
		claims := map[string]toolClaim{binding.DiscoverTool: {what: `"discover", the tool binding.md reserves for the manifest (§6.1)`}}
		ids := map[string]bool{}
		prefixes := map[string]*lint.Language{}
		for _, l := range p.Languages {
			// An id that is missing, empty or not a string derives no
			// names; the schema and language-id rules report it.
			id, _ := stringField(l, "id")
			hasID := id != ""
			if hasID && ids[id] {
				continue
			}
			ids[id] = hasID
			prefix := binding.Prefix(id)
			collided := false
			if first, ok := prefixes[prefix]; ok && hasID {
				collided = true
				p.Report(l.Pointer+"/id",
					fmt.Sprintf("Language ids %q and %q (%s) both map to the tool prefix %q, so binding.md derives the same tool names, such as %q, for both",
						report.Clip(id), report.Clip(first.ID), indexLabel(first.Pointer), report.Clip(prefix), report.Clip(binding.Tool(id, binding.Validate))),
					"change one id so that the two differ in a letter, digit, \"_\" or \"-\": binding.md replaces every other character with \"_\"")
			} else if hasID {
				prefixes[prefix] = l
			}
			for _, a := range addresses {
				ptr := l.Pointer + "/" + a.field
				n := l.Node.Get(a.field)
				if a.inLoop {
					ptr, n = l.Pointer+"/loop/"+a.field, l.Node.Get("loop").Get(a.field)
				}
				tool := n.String()
				if tool == "" {
					continue
				}
				derived := ""
				if hasID {
					derived = binding.Tool(id, a.op)
				}
				names := fmt.Sprintf("%s names the tool %q for %q (%s)", langLabel(l), report.Clip(tool), a.op, a.name())
				if len(tool) > binding.MaxTool {
					hint := fmt.Sprintf("name a tool of at most %d bytes", binding.MaxTool)
					if tool == derived {
						hint = fmt.Sprintf("shorten the Language id to at most %d characters: binding.md names its tools <prefix>_<operation>", binding.MaxTool-len(binding.LongestTool("")))
					}
					p.Report(ptr, fmt.Sprintf("%s, of %d bytes; MCP allows at most %d, and a server refuses to register a longer tool", names, len(tool), binding.MaxTool), hint)
					continue
				}
				if c, taken := claims[tool]; taken {
					if collided && tool == derived && c.lang != nil && binding.Prefix(c.lang.ID) == prefix {
						continue // the prefix finding above names the cause
					}
					hint := "give each operation its own tool"
					if derived != "" && derived != tool {
						hint += fmt.Sprintf("; binding.md names this one %q", report.Clip(derived))
					}
					p.Report(ptr, names+", but that tool already serves "+c.what+"; one MCP tool cannot serve two operations", hint)
					continue
				}
				claims[tool] = toolClaim{lang: l, what: fmt.Sprintf("%q of %s (%s.%s)", a.op, langLabel(l), indexLabel(l.Pointer), a.name())}
				if derived != "" && tool != derived {
					p.ReportAs(report.Warning, ptr, false,
						fmt.Sprintf("%s, not %q, the name binding.md derives from the Language id", names, report.Clip(derived)),
						fmt.Sprintf("write %q: clients read tool names from the manifest, so %q works, but a Server that follows binding.md, and every manifest `pilotage build` writes, names this tool %q",
							report.Clip(derived), report.Clip(tool), report.Clip(derived)))
				}
			}
		}
	},
}

// toolClaim is the operation that named a tool first: its Language (nil
// for the discovery tool) and how messages describe it.
type toolClaim struct {
	lang *lint.Language
	what string
}

func init() { register(operationAddresses) }
