package mcpserver

import (
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/model/binding"
	"github.com/pilotage-dev/pilotage/internal/model/expr"
)

// weigh checks msg, a message or a batch of them as read, without
// decoding it (jsonpos.CheckTally), and says why the server does not
// read it: code and bad, or bad "" when it does.
//
// A message that is not JSON as every reader of the project reads it
// is a Parse error at its first wrong byte. That includes an object
// with two members of one name, anywhere in it (docs/json.md): go-sdk's
// decoder (segmentio's, like encoding/json) keeps the last, so that two
// "method"s would be answered as the second, and a client that reads
// the first would see another request answered. It is malformed JSON to
// every reader of the project, so a Parse error too, not an Invalid
// Request: which request the bytes are is the very thing readers
// disagree on. The answer names the message's id unless "id" is the
// name given twice (requestID). The check holds only the names of the
// objects still open, a few bytes a name (jsonpos.Check), not what they
// hold.
//
// A message within --max-message-bytes can still cost many times its
// size once decoded, so two estimates from the tally
// are held to the tree budget every JSON reader of the project holds its
// documents to, 4 bytes a byte of the message plus an allowance:
//
//   - the tree of all its values (jsonpos.Tally.TreeBytes), which bounds
//     what the engine builds of a program, an input or a context, plus
//     6 MiB as for any document;
//   - what go-sdk allocates for the Go values it makes of the rest
//     (expr.Held, maps, slices and interfaces, twice over: sdkGrowth),
//     which it decodes into open fields: a request's params._meta,
//     twice, and capabilities and results; plus 1 MiB (sdkSlack). A tool
//     call's arguments are not among them: go-sdk hands them over as raw
//     JSON, and the handler and the engine read them under the first
//     estimate and their own limits.
//
// Real requests come nowhere near either (an initialize or a program of
// the largest size a Language takes is a few bytes a byte as a tree);
// two megabytes of one-character values, or of a `_meta` object's
// members, are far over.
func weigh(msg []byte) (code int, bad string) {
	t, err := jsonpos.CheckTally(msg)
	var se *jsonpos.SyntaxError
	if errors.As(err, &se) {
		// A stdio message is one line; an HTTP body may be written on
		// several.
		at := fmt.Sprintf("column %d", se.Pos.Column)
		if se.Pos.Line > 1 {
			at = fmt.Sprintf("line %d, column %d", se.Pos.Line, se.Pos.Column)
		}
		return jsonrpc.CodeParseError, fmt.Sprintf("not JSON at %s: %s", at, se.Msg)
	}
	budget := fmt.Sprintf("this server's budget for a message of %d bytes (%d bytes a byte plus %d MiB); send fewer, larger values",
		len(msg), jsonpos.TreePerByte, jsonpos.TreeSlack>>20)
	var be *jsonpos.BudgetError
	if errors.As(t.OverBudget(len(msg)), &be) {
		return jsonrpc.CodeInvalidRequest, fmt.Sprintf("the message's %d values would take about %d bytes as a tree, more than %s", be.Values, be.Tree, budget)
	}
	if held := sdkGrowth * sdkHeld(msg, t); held > jsonpos.TreePerByte*int64(len(msg))+sdkSlack {
		return jsonrpc.CodeInvalidRequest, fmt.Sprintf("the message's values other than a tool call's arguments would take about %d bytes once decoded, more than this server's budget for them in a message of %d bytes (%d bytes a byte plus %d MiB); send fewer, larger values",
			held, len(msg), jsonpos.TreePerByte, sdkSlack>>20)
	}
	return overlongName(msg)
}

// overlongName answers, in go-sdk's place, a request whose method is
// longer than report.ClipBytes (no MCP method is) or a tools/call whose
// tool name is longer than binding.MaxTool (go-sdk registers no such
// tool): go-sdk's answers, "method not found" and "unknown tool", quote
// the name whole, so a megabyte name came back as a megabyte error. The
// answer here is go-sdk's with the name clipped (report.Clip). A message
// that short cannot hold such a name and is not scanned.
func overlongName(msg []byte) (code int, bad string) {
	if len(msg) <= report.ClipBytes || msg[0] != '{' {
		return 0, ""
	}
	var method, params []byte
	scanMessages(msg, func(written, value []byte) {
		switch name, _ := memberName(written); name {
		case "method":
			method = value
		case "params":
			params = value
		}
	}, func() {})
	m := stringAt(method)
	if len(m) > report.ClipBytes {
		return jsonrpc.CodeMethodNotFound, fmt.Sprintf("method not found: %q", report.Clip(m))
	}
	if len(params) == 0 || params[0] != '{' {
		return 0, ""
	}
	param := func(want string) string {
		var v []byte
		closed := false // params' members only, not those after it
		scanMessages(params, func(written, value []byte) {
			if name, _ := memberName(written); !closed && name == want {
				v = value
			}
		}, func() { closed = true })
		return stringAt(v)
	}
	switch m {
	case "tools/call":
		if t := param("name"); len(t) > binding.MaxTool {
			return jsonrpc.CodeInvalidParams, fmt.Sprintf("unknown tool %q", report.Clip(t))
		}
	case "prompts/get":
		// This server has no prompts; go-sdk's answer quotes the name.
		if p := param("name"); len(p) > report.ClipBytes {
			return jsonrpc.CodeInvalidParams, fmt.Sprintf("unknown prompt %q", report.Clip(p))
		}
	case "resources/read":
		if u := param("uri"); len(u) > maxURI {
			return jsonrpc.CodeInvalidParams, fmt.Sprintf("Resource not found: %q", report.Clip(u))
		}
	}
	return 0, ""
}

// maxURI is longer than any URI this server publishes: a guide's is
// binding.GuideURI of a Language id within a tool name's bytes and a
// guide id within a file name's, each escaped at most three bytes a byte.
// go-sdk's not-found answer to a resources/read quotes the URI twice.
const maxURI = 4096

// stringAt is the JSON string value starts with, unescaped; "" when it
// does not start with one.
func stringAt(value []byte) string {
	if len(value) == 0 || value[0] != '"' {
		return ""
	}
	end := stringEnd(value, 0)
	if end == len(value) {
		return ""
	}
	s, _ := memberName(value[1:end])
	return s
}

// sdkSlack is what go-sdk's Go values may take in any message besides
// the tree budget's bytes a byte: what it decodes into them is metadata
// (a progress token, a client's capabilities), some kilobytes, and the
// tree budget's 6 MiB would let a megabyte of _meta cost eleven bytes a
// byte.
const sdkSlack = 1 << 20

// sdkGrowth is what go-sdk's decoder allocates for the Go values it makes
// over what they hold (expr.Held, whose values are each made at their
// final size): it grows every slice and map by appending to it, so that
// a 2 MB _meta of numbers took 26 MB over serve's baseline with the
// estimate at 10.
const sdkGrowth = 2

// sdkHeld estimates what the Go values go-sdk decodes of msg, which
// tallied t, hold: all its values (expr.Held) but a tools/call's
// arguments, and a request's params._meta once more.
func sdkHeld(msg []byte, t jsonpos.Tally) int64 {
	held := expr.Held(t)
	tallied := func(v []byte) int64 {
		sub, _ := jsonpos.ScanTally(v) // a part of msg, which checked
		return expr.Held(sub)
	}
	var method, params []byte
	scanMessages(msg, func(name, value []byte) {
		switch string(name) {
		case "method":
			method = value[:valueEnd(value)]
		case "params":
			params = value[:valueEnd(value)]
		}
	}, func() {
		if len(params) > 0 && params[0] == '{' {
			scanMessages(params, func(name, value []byte) {
				switch string(name) {
				case "arguments":
					if string(method) == `"tools/call"` {
						held -= tallied(value[:valueEnd(value)])
					}
				case "_meta":
					held += tallied(value[:valueEnd(value)])
				}
			}, func() {})
		}
		method, params = nil, nil
	})
	return held
}
