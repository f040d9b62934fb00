// Package schemacost estimates what compiling a JSON Schema would take,
// from its jsonpos tree or only the tally of its values, so that every
// reader that compiles one (lint of a manifest or snapshot, the PDL
// compiler, and through it the engine) refuses a schema over its budget
// before jsonschema/v6 builds it, and the engine can weigh the compiled
// schemas it keeps.
package schemacost

import "github.com/pilotage-dev/pilotage/internal/base/jsonpos"

// What compiling a JSON Schema costs at the peak (jsonschema/v6, measured
// as lint's peak RSS over its baseline, docs/performance.md "Hostile
// inputs"): every subschema, an object or a boolean where a schema may
// stand, becomes a compiled Schema and its metaschema validation, 1.3 to
// 2 KiB; every other value, an enum's member above all, about 160 to
// 190 bytes. A schema's text spends 3 bytes on an empty subschema and 2
// on a one-digit enum member, so compiling one takes 20 to 700 bytes a
// byte of it: a 3.4 MB enum took 81 MB, 40 KB of "{}," 14 MB, and
// 30,000 of them 5.9 s (the compiler's time grows with the square of the
// subschemas).
const (
	PerSubschema = 2048
	PerValue     = 192
)

// dataKeywords hold JSON values, not schemas: what is inside them costs
// PerValue whatever its type.
var dataKeywords = map[string]bool{"enum": true, "const": true, "default": true, "examples": true}

// Cost estimates what compiling the schema n would take at the peak,
// walking its tree (no allocation) with the costs above.
func Cost(n jsonpos.Node) int64 {
	switch n.Kind() {
	case jsonpos.Object:
		cost := int64(PerSubschema)
		for _, m := range n.Members() {
			if dataKeywords[m.Key] {
				cost += PerValue * int64(valueCount(m.Value))
			} else {
				cost += Cost(m.Value)
			}
		}
		return cost
	case jsonpos.Array:
		var cost int64
		for _, e := range n.Elems() {
			cost += Cost(e)
		}
		return cost
	case jsonpos.Bool:
		return PerSubschema
	}
	return PerValue
}

// Least is the least Cost of a schema with tally t: every value but an
// array costs at least PerValue. A reader holding no tree yet asks it
// first, so a schema file of millions of values is refused from one
// checking pass, without the tree Cost walks.
func Least(t jsonpos.Tally) int64 {
	return PerValue * (t.Objects + t.Strings + t.Numbers + t.Literals)
}

// valueCount counts the values in n, n included.
func valueCount(n jsonpos.Node) int {
	c := 1
	for _, m := range n.Members() {
		c += valueCount(m.Value)
	}
	for _, e := range n.Elems() {
		c += valueCount(e)
	}
	return c
}

// Budget is what compiling one schema read with n bytes of input may
// cost: the budget of the tree of a JSON document of n bytes
// (jsonpos.TreeBudget, 4 bytes a byte plus 6 MiB), so that a reader
// holding the tree, or the PDL's, and the compiled schema stays within
// 10 bytes a byte of its input over the baseline (docs/json.md, "Dense
// documents"; docs/pdl.md, "JSON Schemas"). lint and the PDL compiler
// keep no compiled schema, so each schema is held to it alone; the engine
// keeps those it compiles, so the PDL compiler (and lint, with a warning)
// also holds a Language's distinct schemas to it together, and the
// engine's cache weighs what it keeps by Cost.
func Budget(n int) int64 { return jsonpos.TreeBudget(n) }

// MaxDepth bounds the nesting of a schema a reader compiles: metaschema
// validation costs time quadratic in the depth (a 2000-level schema takes
// seconds), and real schemas stay far below this.
const MaxDepth = 128

// TooDeep reports whether n nests more than MaxDepth levels of objects
// and arrays.
func TooDeep(n jsonpos.Node) bool { return depthOver(n, MaxDepth) }

func depthOver(n jsonpos.Node, limit int) bool {
	if limit < 0 {
		return true
	}
	for _, m := range n.Members() {
		if depthOver(m.Value, limit-1) {
			return true
		}
	}
	for _, e := range n.Elems() {
		if depthOver(e, limit-1) {
			return true
		}
	}
	return false
}
