// Package pdltest holds what the PDL packages' tests share: one line per
// finding with its full span, so golden files pin messages, positions and
// hints exactly, and the large generated Language the benchmarks read.
package pdltest

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/pilotage-dev/pilotage/internal/base/report"
)

// Render prints findings one per line: file:line:col[-endline:endcol]
// rule: message [hint: …].
func Render(fs []report.Finding) []byte {
	var b bytes.Buffer
	for _, f := range fs {
		fmt.Fprintf(&b, "%s:%d:%d", f.File, f.Line, f.Column)
		if f.EndLine > 0 {
			fmt.Fprintf(&b, "-%d:%d", f.EndLine, f.EndColumn)
		}
		fmt.Fprintf(&b, " %s: %s", f.Rule, f.Message)
		if f.Hint != "" {
			fmt.Fprintf(&b, " [hint: %s]", f.Hint)
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// Generated is a PDL file of the size docs/performance.md records
// (sections "build" and "pdl", at 5,000 entries and 50 guides): one
// Language, 5,000 catalog entries (schemas, tags, and with behaviour two
// distinct CEL expressions each) and 50 guides, each teaching with a
// program the compiler validates.
func Generated(entries, guides int, behaviour bool) []byte {
	var b strings.Builder
	b.WriteString(`server "bench" version="1"
risk safe readOnly "Reads."
risk write "Writes."
kind device callable "A device."
status step failed ok=false "Failed."
language "bench/v1" {
  mode immediate
  trace full
  retention session
  capabilities {
    guides topic_fetch
    catalog search changed_since
    validate
    plan
    execute idempotency
    trace_fetch narrate
  }
`)
	for g := 0; g < guides; g++ {
		level := "reference"
		if g == 0 {
			level = "core"
		}
		fmt.Fprintf(&b, "  guide g%d \"Guide %d\" level=%s {\n    topics setup usage\n    body \"\"\"\n      # Guide %d\n\n", g, g, level, g)
		for p := 0; p < 8; p++ {
			fmt.Fprintf(&b, "      ## Section %d\n\n      Device %d reads the room and reports its state; call it before you switch anything in that room.\n\n", p, g*8+p)
		}
		fmt.Fprintf(&b, "      ```json\n      {\"steps\": [{\"id\": \"a\", \"call\": \"dev%d.read\", \"with\": {\"room\": \"input.room\"}},\n        {\"id\": \"b\", \"if\": \"steps.a.output.ok\", \"then\": [{\"id\": \"c\", \"call\": \"dev%d.read\", \"with\": {\"room\": \"'hall'\"}}], \"else\": []}],\n       \"output\": \"steps.a.output\"}\n      ```\n      \"\"\"\n  }\n", 3*g, 3*g+3)
	}
	b.WriteString("}\n")
	for i := 0; i < entries; i++ {
		risk, verb := "safe", "read"
		if i%3 == 2 {
			risk, verb = "write", "set"
		}
		fmt.Fprintf(&b, `entry "dev%d.%s" kind=device risk=%s {
  name "Device %d"
  description "Device %d in group %d: %s its state."
  tags group%d %s
  input_schema `+"`"+`{"type": "object", "properties": {"room": {"type": "string"}, "level": {"type": "integer", "minimum": %d}}, "required": ["room"]}`+"`"+`
  output_schema `+"`"+`{"type": "object", "properties": {"ok": {"type": "boolean"}, "value": {"type": "number"}}}`+"`"+`
`, i, verb, risk, i, i, i%20, verb, i%20, verb, i%7)
		if behaviour {
			fmt.Fprintf(&b, "  compute `{\"ok\": input.room != \"\", \"value\": %d.0}`\n  fail failed when=`input.room == \"x%d\"` \"offline\"\n", i, i)
		}
		b.WriteString("}\n")
	}
	return []byte(b.String())
}

// SmallGuides is a PDL file of one Language with n guides of a heading
// and a sentence each, about 137 bytes a guide, and one entry: many
// small statements in one Language block (docs/performance.md, "Many
// small guides").
func SmallGuides(n int) []byte {
	var b strings.Builder
	b.WriteString(smallLanguage)
	for i := range n {
		fmt.Fprintf(&b, "  guide g%d \"Guide number %d\" level=reference {\n    body \"\"\"\n      # Guide %d\n\n      Call the things of this guide.\n      \"\"\"\n  }\n", i, i, i)
	}
	b.WriteString("}\nentry \"e\" kind=thing risk=safe {\n  returns `{\"ok\": true}`\n}\n")
	return []byte(b.String())
}

// SmallEntries is a PDL file of the Language of SmallGuides(0) and n
// catalog entries of a description and a fixed output each, about 133
// bytes an entry: many small top-level statements (docs/performance.md,
// "Many small guides").
func SmallEntries(n int) []byte {
	var b strings.Builder
	b.WriteString(smallLanguage + "}\n")
	for i := range n {
		fmt.Fprintf(&b, "entry \"e%d\" kind=thing risk=safe {\n  description \"Entry %d: reads one thing and returns its state.\"\n  returns `{\"ok\": true}`\n}\n", i, i)
	}
	return []byte(b.String())
}

// GeneratedCatalog is head followed by n catalog entries as a generator
// of a building's devices writes them: kind=action risk=safe, an
// input_schema and returns, and when named a name and a description too,
// about 100 and 155 bytes an entry (docs/pdl.md, "How large a file can
// be").
func GeneratedCatalog(head []byte, n int, named bool) []byte {
	var b strings.Builder
	b.Grow(len(head) + n*160)
	b.Write(head)
	for i := range n {
		fmt.Fprintf(&b, "entry \"e.n%d\" kind=action risk=safe {\n", i)
		if named {
			fmt.Fprintf(&b, "  name \"Entry %d\"\n  description \"Does thing %d.\"\n", i, i)
		}
		b.WriteString("  input_schema `{\"type\": \"object\"}`\n  returns `{\"x\": 1}`\n}\n")
	}
	return []byte(b.String())
}

// OneLineCatalog is head followed by n catalog entries of one line each,
// a fixed output alone (entry "e.nI" kind=action risk=safe { returns
// `{}` }), about 55 bytes an entry: a catalog of entries shorter than the
// parser's budget lets a file hold many of (docs/pdl.md, "How large a
// file can be").
func OneLineCatalog(head []byte, n int) []byte {
	var b strings.Builder
	b.Grow(len(head) + n*56)
	b.Write(head)
	for i := range n {
		fmt.Fprintf(&b, "entry \"e.n%d\" kind=action risk=safe { returns `{}` }\n", i)
	}
	return []byte(b.String())
}

// SmallProse is a PDL file of the Language of SmallGuides(0) with n
// one-line prose paragraphs of scope_rules, about 58 bytes a paragraph:
// many statements the Language block keeps until it has compiled
// (docs/performance.md, "Many prose paragraphs").
func SmallProse(n int) []byte {
	var b strings.Builder
	b.WriteString(smallLanguage)
	for i := range n {
		fmt.Fprintf(&b, "  prose scope_rules \"A room name is a plain string %d.\"\n", i)
	}
	b.WriteString("}\n")
	return []byte(b.String())
}

// smallLanguage is the head of SmallGuides, SmallEntries and SmallProse: a Language
// block of one guide, left open.
const smallLanguage = `server "s" version="1"
risk safe readOnly "Reads."
kind thing callable "A thing."
language "s/v1" {
  mode immediate
  trace full
  retention none
  capabilities {
    guides
    catalog
    validate
    execute
  }
  guide core "Things" level=core {
    body """
      # Things

      Call the things.
      """
  }
`
