package config

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/pilotage-dev/pilotage/internal/base/yamlcost"
)

// KeyDoc is what the schema says of the key at byte offset off of a
// pilotage.yaml's text, for an editor's hover: the top-level key it is
// under (its section of docs/config.md), its path (languages.lang) and
// its description. ok is false off a key, on a key the schema does not
// describe, or in text that is not YAML or too dense for Parse. Aliases
// are not followed, so the cost is one parse of at most MaxSize bytes
// within yamlcost's budget.
func KeyDoc(src []byte, off int) (top, path, doc string, ok bool) {
	if len(src) > MaxSize || off < 0 || off > len(src) || yamlcost.Check(src) != nil {
		return "", "", "", false
	}
	var root yaml.Node
	if yaml.Unmarshal(src, &root) != nil || len(root.Content) == 0 {
		return "", "", "", false
	}
	lineStart := bytes.LastIndexByte(src[:off], '\n') + 1
	line := bytes.Count(src[:lineStart], []byte("\n")) + 1
	col := utf8.RuneCount(src[lineStart:off]) + 1
	_, sch := schema()
	return keyDoc(root.Content[0], sch, sch, line, col, "", 0)
}

// keyDoc looks for the key at line:col in n, whose schema is sch.
func keyDoc(n *yaml.Node, sch, rootSchema any, line, col int, path string, depth int) (top, p, doc string, ok bool) {
	if depth > maxDepth {
		return "", "", "", false
	}
	sch = resolve(sch, rootSchema)
	switch n.Kind {
	case yaml.MappingNode:
		props, _ := field(sch, "properties").(map[string]any)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			sub, known := props[k.Value]
			kp := k.Value
			if path != "" {
				kp = path + "." + k.Value
			}
			if k.Line == line && col >= k.Column && col <= k.Column+utf8.RuneCountInString(k.Value) {
				d, _ := field(sub, "description").(string)
				if !known || d == "" {
					return "", "", "", false
				}
				return topOf(kp), kp, d, true
			}
			if known {
				if t, p, d, ok := keyDoc(v, sub, rootSchema, line, col, kp, depth+1); ok {
					return t, p, d, ok
				}
			}
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			if t, p, d, ok := keyDoc(c, field(sch, "items"), rootSchema, line, col, path, depth+1); ok {
				return t, p, d, ok
			}
		}
	}
	return "", "", "", false
}

// resolve follows a schema's $ref (only local ones: the embedded
// schema has no others).
func resolve(sch, rootSchema any) any {
	for range maxDepth {
		ref, _ := field(sch, "$ref").(string)
		if ref == "" {
			break
		}
		sch = lookup(rootSchema, ref)
	}
	return sch
}

// lookup is the part of the schema a local reference ("#/$defs/x",
// "#" for the whole) points at, nil when none.
func lookup(rootSchema any, ref string) any {
	cur := rootSchema
	for _, seg := range strings.Split(strings.TrimPrefix(ref, "#"), "/") {
		if seg != "" {
			cur = field(cur, seg)
		}
	}
	return cur
}

func field(sch any, name string) any {
	m, _ := sch.(map[string]any)
	return m[name]
}

func topOf(path string) string {
	top, _, _ := strings.Cut(path, ".")
	return top
}
