package expr

import (
	"bytes"

	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
)

// What DecodeCheckedJSON's values hold on a 64-bit platform, in bytes,
// fitted by TestHeldBoundsDecode to hostile shapes (one-character values,
// small containers, objects of 2 to 5000 members): each value is an
// interface (16) in its array, map or the root, its array made at its
// final size (jsonpos.Decode); a number is boxed (8); a string is a boxed
// header (16) and its bytes, rounded up to the allocator's size class (8
// and an eighth more); an array is a boxed slice header (24) with at least
// one slot (16); an object is a map header (48), one with members also
// its first group of 8 slots (264), and a member its key's slot, its
// share of the spare slots and control bytes of a map rounded up to a
// power of two groups (72), and its key's bytes, rounded as a string's.
const (
	heldValue  = 16
	heldNumber = 8
	heldString = 16 + 8
	heldArray  = 24 + 16
	heldObject = 48
	heldFilled = 264
	heldMember = 72 + 8
)

// CheckHeld applies CheckJSON's policy to data and estimates the bytes
// the values DecodeCheckedJSON makes of it hold, from a tally taken while
// checking: a caller bounding what it holds refuses data whose values
// would not fit before it decodes them. The estimate is at least what
// they hold (TestHeldBoundsDecode) and is 0 for empty data.
func CheckHeld(data []byte) (int64, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return 0, nil
	}
	t, err := jsonpos.CheckTally(data)
	if err != nil {
		return 0, err
	}
	return Held(t), nil
}

// Held is the estimate CheckHeld makes from a document's tally: about
// what decoding it into Go's plain values (maps, slices, interfaces)
// holds, for a reader whose decoder of that kind is not its own (serve's
// guard, before go-sdk decodes a message).
func Held(t jsonpos.Tally) int64 {
	values := t.Objects + t.Arrays + t.Strings + t.Numbers + t.Literals
	return values*heldValue + t.Numbers*heldNumber +
		t.Strings*heldString + t.StringBytes + t.StringBytes/8 +
		t.Arrays*heldArray + t.Objects*heldObject + t.FilledObjects*heldFilled +
		t.Members*heldMember + t.NameBytes + t.NameBytes/8
}
