package language

import (
	"slices"
	"strconv"
	"strings"

	pilotage "github.com/pilotage-dev/pilotage"
)

// ItemMembers are the members of an emitted catalog item whose place
// ItemSpots records, after the item's own.
var ItemMembers = [...]string{"id", "kind", "risk", "risk_hints", "name", "description", "revision", "tags", "languages", "input_schema", "output_schema"}

// Spot is a place in the Language's own PDL file: a Pos without the file,
// in 12 bytes.
type Spot struct{ Line, Column, Offset int32 }

// ItemSpots locate one catalog item: [0] the item, then each of
// ItemMembers in order; a Spot of line 0 records nothing. A catalog of
// thousands of items kept about ten Positions keys an item, each a
// pointer string and a map slot, most of what a compiled Language holds.
type ItemSpots [1 + len(ItemMembers)]Spot

// SpotOf is p without its file.
func SpotOf(p Pos) Spot { return Spot{int32(p.Line), int32(p.Column), int32(p.Offset)} }

// Position is where the snapshot value at pointer (written from the
// snapshot's root) came from, when the Language records it: in
// Positions, or in Items for a catalog item and its members.
func (l *Language) Position(pointer string) (Pos, bool) {
	if p, ok := l.Positions[pointer]; ok {
		return p, true
	}
	rest, ok := strings.CutPrefix(pointer, "/catalog/"+pilotage.EscapePointerToken(l.ID)+"/items/")
	if !ok {
		return Pos{}, false
	}
	num, member, _ := strings.Cut(rest, "/")
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 || n >= len(l.Items) || strconv.Itoa(n) != num {
		return Pos{}, false
	}
	i := 0
	if member != "" {
		if i = 1 + slices.Index(ItemMembers[:], member); i == 0 {
			return Pos{}, false
		}
	}
	s := l.Items[n][i]
	if s.Line == 0 {
		return Pos{}, false
	}
	return Pos{File: l.Pos.File, Line: int(s.Line), Column: int(s.Column), Offset: int(s.Offset)}, true
}
