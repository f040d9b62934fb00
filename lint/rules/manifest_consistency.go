package rules

import (
	"fmt"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/binding"
	"github.com/pilotage-dev/pilotage/lint"
)

// manifestConsistency checks §4.3 rule 7: the effective capability map is
// authoritative, and the Language entry's operation addresses name
// exactly the operations it declares. An address for an undeclared
// operation is pointed at by its member name ("remove this"); a missing
// address is pointed at the object it belongs in ("add it here"). The
// schema rule already reports a missing `guides` or `loop.validate`, so
// for those two this rule only adds that they must not be empty.
var manifestConsistency = &lint.Rule{
	ID:       "manifest-consistency",
	Category: lint.CatCapabilities,
	Section:  "4.3",
	Severity: report.Error,
	Summary:  "The `guides`, `catalog` and `loop` addresses must match the effective capability map: guides and validate always, catalog, execute and trace iff declared.",
	Check: func(p *lint.Pass) {
		for _, l := range p.Languages {
			loop := l.Node.Get("loop")
			for _, a := range addresses {
				obj, ptr := l.Node, l.Pointer
				if a.inLoop {
					obj, ptr = loop, l.Pointer+"/loop"
				}
				if !obj.Is(jsonpos.Object) {
					continue // `loop` missing or malformed: the schema rule reports it
				}
				checkAddress(p, l, obj, ptr, a)
			}
		}
	},
}

// address is one operation address of a Language entry (§4.3 rule 7).
type address struct {
	field      string // member name in the entry or in `loop`
	inLoop     bool
	capability string // the capability whose operation it addresses
	always     bool   // required whatever the map says
	op         binding.Op
}

var addresses = []address{
	{field: "guides", capability: pilotage.CapGuides, always: true, op: binding.Learn},
	{field: "catalog", capability: pilotage.CapCatalog, op: binding.Lookup},
	{field: "validate", inLoop: true, capability: pilotage.CapValidate, always: true, op: binding.Validate},
	{field: "execute", inLoop: true, capability: pilotage.CapExecute, op: binding.Execute},
	{field: "trace", inLoop: true, capability: pilotage.CapTraceFetch, op: binding.Trace},
}

// name renders the address as the spec writes it: "loop.execute".
func (a address) name() string {
	if a.inLoop {
		return "loop." + a.field
	}
	return a.field
}

// checkAddress checks address a, member of obj (at ptr).
func checkAddress(p *lint.Pass, l *lint.Language, obj jsonpos.Node, ptr string, a address) {
	n, fptr := obj.Get(a.field), ptr+"/"+a.field
	declared := l.Caps.Has(a.capability)
	if capMalformed(p, l, a.capability) {
		return
	}
	tool := "<tool name>"
	if l.ID != "" {
		tool = binding.Tool(l.ID, a.op)
	}
	switch {
	case !n.Exists() && declared && !a.always:
		p.Report(ptr, fmt.Sprintf("%s declares %q but has no %q address", langLabel(l), a.capability, a.name()),
			fmt.Sprintf("add \"%s\": %q here, the tool that serves %q for this Language", a.field, report.Clip(tool), a.capability))
	case n.Exists() && !declared && !a.always:
		p.ReportKey(fptr, fmt.Sprintf("%s has a %q address but does not declare %q; the effective capability map is authoritative, so this address is invalid",
			langLabel(l), a.name(), a.capability),
			fmt.Sprintf("remove %q, or declare %q if the Language really provides it", a.name(), a.capability))
	case n.Is(jsonpos.String) && n.Str() == "":
		p.Report(fptr, fmt.Sprintf("%s has an empty %q address, which names no operation", langLabel(l), a.name()),
			fmt.Sprintf("write the name of the tool that serves the operation, such as %q", report.Clip(tool)))
	}
}

func init() { register(manifestConsistency) }
