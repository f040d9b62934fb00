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
// pointer string and a map slot, most of what a compiled Language holds;
// then these 144 bytes an item, a fifth of the verbs' peak on a catalog of
// short entries, so a Language keeps the item's Spot alone (Items) and
// its members' are read again from the file when a finding needs one
// (ItemSpotsAt).
type ItemSpots [1 + len(ItemMembers)]Spot

// SpotOf is p without its file.
func SpotOf(p Pos) Spot { return Spot{int32(p.Line), int32(p.Column), int32(p.Offset)} }

// GuideMembers are the members of an emitted guide whose place
// GuideSpots records, after the guide's own.
var GuideMembers = [...]string{"level", "body", "topics", "description"}

// GuideSpots locate one authored guide as ItemSpots locate an item: a
// Language of 60,000 small guides kept three Positions keys a guide, 37
// MB, four times its file.
type GuideSpots [1 + len(GuideMembers)]Spot

// Position is where the snapshot value at pointer (written from the
// snapshot's root) came from, when the Language records it: in
// Positions, in Items for a catalog item and its members, or in
// GuideSpots for a guide and its members.
func (l *Language) Position(pointer string) (Pos, bool) {
	if p, ok := l.Positions[pointer]; ok {
		return p, true
	}
	key := pilotage.EscapePointerToken(l.ID)
	if rest, ok := strings.CutPrefix(pointer, "/catalog/"+key+"/items/"); ok {
		return l.spot(rest, len(l.Items), func(n int) []Spot {
			if l.ItemSpotsAt == nil {
				return []Spot{l.Items[n]} // the item's members are placed at it
			}
			at := l.ItemSpotsAt(l.Items[n])
			return at[:]
		}, ItemMembers[:])
	}
	if rest, ok := strings.CutPrefix(pointer, "/guides/"+key+"/"); ok {
		return l.spot(rest, len(l.GuideSpots), func(n int) []Spot { return l.GuideSpots[n][:] }, GuideMembers[:])
	}
	return Pos{}, false
}

// SetValue is the place of the statement that defines value of the
// closed set set (SetValues).
func (l *Language) SetValue(set, value string) (Pos, bool) {
	s, ok := l.SetValues[set][value]
	if !ok {
		return Pos{}, false
	}
	return l.at(s), true
}

// at is s in the Language's file.
func (l *Language) at(s Spot) Pos {
	return Pos{File: l.Pos.File, Line: int(s.Line), Column: int(s.Column), Offset: int(s.Offset)}
}

// spot is the place rest ("N" or "N/member") records among count
// values, each of whose spots are spots(n): the value's own, then each
// of members.
func (l *Language) spot(rest string, count int, spots func(n int) []Spot, members []string) (Pos, bool) {
	num, member, _ := strings.Cut(rest, "/")
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 || n >= count || strconv.Itoa(n) != num {
		return Pos{}, false
	}
	i := 0
	if member != "" {
		if i = 1 + slices.Index(members, member); i == 0 {
			return Pos{}, false
		}
	}
	all := spots(n)
	if i >= len(all) {
		return Pos{}, false
	}
	s := all[i]
	if s.Line == 0 {
		return Pos{}, false
	}
	return l.at(s), true
}
