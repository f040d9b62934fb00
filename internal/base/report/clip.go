package report

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ClipBytes is the most of a quoted value a finding carries: a longer
// one is cut to its first ClipBytes-3 bytes and an ellipsis.
const ClipBytes = 120

// ClipNames is the most names of a list a finding quotes (Clips): the
// rest are counted.
const ClipNames = 20

// Clip shortens a name or value a finding quotes to its first 117 bytes
// and an ellipsis, cut between characters. What a finding quotes comes
// from its input and may be megabytes; a message that quotes it whole is
// as large, and one name quoted by many findings (a Language's id in
// every finding about it, a run_id in every finding of its trace)
// multiplies a report by their number. A value of at most 120 bytes is
// returned as it is, so every ordinary message is unchanged.
func Clip[T ~string | ~[]byte](b T) string {
	if len(b) <= ClipBytes {
		return string(b)
	}
	cut := ClipBytes - 3
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return string(b[:cut]) + "…"
}

// Quote is strconv.Quote of Clip(s): a name quoted as %q quotes it.
func Quote(s string) string { return strconv.Quote(Clip(s)) }

// QuoteName is Clip(s) in double quotes as a finding's message and hint
// quote a name: not escaped as Go's %q escapes it ("a\tb"), so that the
// text formats show its controls as they show them in the rest of the
// message and hint (a\x09b, OneLine), one way in both; its newlines are
// written \x0a already, since a hint keeps its own newlines. A quote or
// a backslash in the name is escaped (\", \\), so the quotes around it
// stay the name's bounds and a name holding the text \x09 reads apart
// from one holding a tab.
func QuoteName(s string) string {
	return `"` + nameEscapes.Replace(Clip(s)) + `"`
}

var nameEscapes = strings.NewReplacer("\n", `\x0a`, `"`, `\"`, `\`, `\\`)

// Clips clips each name of a list a finding quotes (Clip) and keeps the
// first ClipNames of them, the last element then counting the rest
// ("and 7 more"): a list comes from the input too, a plan step's calls
// or a branch's arms, and may be as long as the input allows. The list
// itself when none of that is needed, as in every ordinary finding.
func Clips(names []string) []string {
	if len(names) > ClipNames {
		out := make([]string, ClipNames+1)
		for i, n := range names[:ClipNames] {
			out[i] = Clip(n)
		}
		out[ClipNames] = "and " + strconv.Itoa(len(names)-ClipNames) + " more"
		return out
	}
	for i, n := range names {
		if len(n) > ClipBytes {
			out := slices.Clone(names)
			for j := i; j < len(out); j++ {
				out[j] = Clip(out[j])
			}
			return out
		}
	}
	return names
}

// ClipPointer clips each token of a JSON Pointer that a report shows
// (Clip), keeping the tokens that place it: a Language's id is a token of
// the pointer of every finding in its catalog, so a pointer under a
// megabyte key is as long, and is printed once per finding. A text
// report clips every finding's pointer; lint clips its findings' in
// every format (docs/rules/README.md), their line:col placing them.
func ClipPointer(p string) string {
	if len(p) <= ClipBytes {
		return p
	}
	tokens := strings.Split(p, "/")
	for i, t := range tokens {
		tokens[i] = Clip(t)
	}
	return strings.Join(tokens, "/")
}
