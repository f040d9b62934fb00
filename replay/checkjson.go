package replay

import "io"

// CheckJSON reads a trace file r to its end as Replay reads it and
// returns an *InputError at the first place where it is not JSON as
// docs/json.md has it for every reader (nesting, member names, UTF-8,
// data after the value), or nil. Tools that read a trace file with a
// decoder of their own (the timeline) run it beside that decoder so the
// file is refused where and as replay refuses it.
func CheckJSON(file string, r io.Reader) error {
	s, _ := walk(r, sourceLimit, func(*traceMembers) {}, func(*entry) {}, func(string, int, site) bool { return true }, func(*diagnostic) {}, false)
	if s.syntax == nil {
		return nil
	}
	return &InputError{File: file, Line: s.syntax.line, Col: s.syntax.col, Msg: "malformed JSON: " + s.syntaxMsg,
		Hint: "fix the JSON first; nothing else in this file was read"}
}
