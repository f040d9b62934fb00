package inputs

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
)

// Kind is what a JSON document is, told by its top-level members.
type Kind int

// The kinds. Unknown is anything else, malformed JSON included: the
// verb that reads it says what is wrong with it.
const (
	Unknown  Kind = iota
	Manifest      // "pilotage" or "languages" (§5.1)
	Snapshot      // "snapshot" (docs/snapshot.md)
	Trace         // "run_id" or "trace": a trace, an execute or trace-fetch response (§5.8)
	Plan          // "valid", "max_risk": a plan or a validate response (§5.6)
	Program       // "steps" alone: a program (§5.5)
	Other         // an object with none of these members: a JSON Schema, a program's input
	Response      // a validate response without a plan (Recognize only; Sniff takes it for a Plan)
)

func (k Kind) String() string {
	return [...]string{"unknown", "a manifest", "a snapshot", "a trace", "a plan", "a program",
		"no Pilotage document (no pilotage, languages, snapshot, run_id, trace, steps, level or outcome member)",
		"a validate response"}[k]
}

// SniffFile is Sniff of the named file.
func SniffFile(name string) Kind {
	f, err := os.Open(name)
	if err != nil {
		return Unknown // the verb reports it when it reads it
	}
	defer f.Close()
	return Sniff(f)
}

// Sniff reads the top-level member names of a JSON object, skipping
// their values token by token (memory bounded by the largest token, so
// a trace of any size can be told), and stops as soon as a member
// decides. A trace's steps may come before its run_id, so "steps"
// alone decides only at the end of the object.
func Sniff(r io.Reader) Kind {
	dec := json.NewDecoder(bufio.NewReader(r))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return Unknown
	}
	kind := Other
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return Unknown
		}
		switch key, _ := t.(string); key {
		case "snapshot":
			return Snapshot
		case "pilotage", "languages":
			return Manifest
		case "run_id", "trace", "level", "outcome":
			return Trace
		case "valid", "max_risk":
			kind = Plan
		case "steps":
			if kind == Other {
				kind = Program
			}
		}
		if SkipValue(dec) != nil {
			return Unknown
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return Unknown
	}
	return kind
}

// SkipValue reads past one value's tokens without keeping them, so a
// streaming reader can pass over members it has no use for.
func SkipValue(dec *json.Decoder) error {
	depth := 0
	for {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}
