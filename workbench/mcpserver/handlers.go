package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/model/binding"
	"github.com/pilotage-dev/pilotage/workbench/service"
)

func (s *Server) discoverHandler() mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if _, err := arguments(req.Params.Arguments); err != nil {
			return nil, err
		}
		m, err := s.svc.Discover(ctx)
		if err != nil {
			return errorResult(err), nil
		}
		return result(m), nil
	}
}

// opHandler serves one operation of one Language: carrier checks, the
// members' JSON types (a mismatch is an invalid_request request error,
// §8), then the service, which checks every value in the operation's
// order (§6.5.2).
func (s *Server) opHandler(lang string, op binding.Op, def toolSchemas) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args, err := arguments(req.Params.Arguments)
		if err != nil {
			return nil, err
		}
		members, msg := argumentMembers(args, def)
		if msg != "" {
			return errorResult(&pilotage.RequestError{Kind: pilotage.ErrInvalidRequest, Message: msg}), nil
		}
		if msg := checkArguments(def.check, members); msg != "" {
			return errorResult(&pilotage.RequestError{Kind: pilotage.ErrInvalidRequest, Message: msg}), nil
		}
		args, err = enumsAsText(args, members, def.enums)
		if err != nil {
			return nil, err
		}
		v, err := s.dispatch(ctx, s.caller(req.Session, req.Extra), lang, op, args, members)
		if err != nil {
			return errorResult(err), nil
		}
		return result(v), nil
	}
}

// arguments returns the call's arguments as a JSON object. Absent
// arguments are the empty object; anything but an object is a carrier
// failure (binding.md), a JSON-RPC invalid-params error.
func arguments(raw json.RawMessage) (json.RawMessage, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return json.RawMessage("{}"), nil
	}
	if t[0] != '{' {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "tool arguments must be a JSON object"}
	}
	return t, nil
}

// argumentMembers splits the arguments object, valid JSON as go-sdk
// hands it over, into the members the tool declares, each a view of
// args, keyed by the schema's name for it, or says why it cannot. A
// member given twice is refused, as every reader of the project refuses
// it (docs/json.md): encoding/json would let the last one win, so a
// client and the server could read different requests; and since it
// matches names regardless of case, "Program" after "program" is the
// same member given twice, which is valid JSON and so passes the
// transports' check (weigh), as a name given twice exactly does not.
// Inside program, input and context the same policy
// is the engine's, as a located diagnostic. Any other member is left
// out, read by nothing, as the service's decoding would skip it: an
// object of a million members costs a scan, not a million entries.
func argumentMembers(args json.RawMessage, def toolSchemas) (map[string]json.RawMessage, string) {
	members := map[string]json.RawMessage{}
	dup := ""
	scanMessages(args, func(written, value []byte) {
		name, ok := memberName(written)
		if !ok {
			return
		}
		member, ok := def.declared(name)
		if !ok {
			return
		}
		if _, twice := members[member]; twice && dup == "" {
			dup = name
		}
		members[member] = value[:valueEnd(value)]
	}, func() {})
	if dup != "" {
		return nil, "arguments: " + jsonpos.DuplicateName(dup)
	}
	return members, ""
}

// checkArguments checks the JSON types of the arguments' members (the
// tool's check schema, typesOnly) and describes the violations, "" when
// they conform. Values are the service's to judge, in its own order. The
// data members (program, input, context) are unconstrained in the check
// schema, so they are not converted for it: a large program is scanned
// once, not turned into a tree of values.
func checkArguments(check *jsonschema.Schema, members map[string]json.RawMessage) string {
	inst := make(map[string]any, len(members))
	for k, raw := range members {
		if slices.Contains(dataMembers, k) {
			inst[k] = nil
			continue
		}
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			return "arguments are not valid JSON: " + err.Error()
		}
		inst[k] = v
	}
	vs := pilotage.Violations(check.Validate(inst))
	if len(vs) == 0 {
		return ""
	}
	parts := make([]string, 0, len(vs))
	for _, v := range vs {
		at := v.Pointer
		if at == "" {
			at = "arguments"
		}
		parts = append(parts, at+": "+v.Message)
	}
	return "the arguments do not match the tool's input schema: " + strings.Join(parts, "; ")
}

// enumsAsText hands each enum member that is not a string to the service
// as a string of its JSON text (5 as "5"), which no enum holds, so the
// service refuses it as unrecognized at its own check in the operation's
// order (§6.5.2: "whether trace_level is recognized"), where decoding it
// as is would fail before every check. A string, "" too, goes as sent:
// the request's enum members are pointers, so "" is supplied, not left
// out. args is returned unchanged when every enum member is a string.
func enumsAsText(args json.RawMessage, members map[string]json.RawMessage, enums []string) (json.RawMessage, error) {
	changed := false
	for _, name := range enums {
		raw, present := members[name]
		// A member's raw value has no leading space, and a JSON value
		// that starts with a quote is a string.
		if !present || len(raw) > 0 && raw[0] == '"' {
			continue
		}
		text, err := json.Marshal(string(raw))
		if err != nil {
			return nil, err
		}
		members[name], changed = text, true
	}
	if !changed {
		return args, nil
	}
	return json.Marshal(members)
}

// dispatch decodes the arguments into the operation's request and calls
// the service.
func (s *Server) dispatch(ctx context.Context, c service.Caller, lang string, op binding.Op, args json.RawMessage, members map[string]json.RawMessage) (any, error) {
	switch op {
	case binding.Learn:
		return serve(args, func(r pilotage.LearnRequest) (any, error) { return s.svc.Learn(ctx, c, lang, r) })
	case binding.Lookup:
		return serve(args, func(r pilotage.LookupRequest) (any, error) { return s.svc.Lookup(ctx, c, lang, r) })
	case binding.Validate:
		return serve(args, func(r pilotage.ValidateRequest) (any, error) {
			r.Program = shared(members, "program", r.Program)
			r.Context = shared(members, "context", r.Context)
			return s.svc.Validate(ctx, c, lang, r)
		})
	case binding.Execute:
		return serve(args, func(r pilotage.ExecuteRequest) (any, error) { return s.svc.Execute(ctx, c, lang, r) })
	case binding.Trace:
		return serve(args, func(r pilotage.TraceFetchRequest) (any, error) { return s.svc.Trace(ctx, c, lang, r) })
	}
	return nil, fmt.Errorf("no operation %q", op)
}

// shared is the member name of the arguments as a view of them, the
// same bytes json.Unmarshal decoded, or decoded when the tool does not
// declare the member (argumentMembers skips it). Validate keeps nothing
// of its request once it answers, so its program is not held twice
// while it is checked, once in go-sdk's arguments and once decoded
// (docs/performance.md, "Hostile inputs"). Execute's are copies: a
// deploy Run promotes its program as given, and a view would keep the
// whole arguments, the input with them, as long as the promotion.
func shared(members map[string]json.RawMessage, name string, decoded json.RawMessage) json.RawMessage {
	if view, ok := members[name]; ok {
		return view
	}
	return decoded
}

// serve decodes args into the request type R and calls op; a decoding
// failure is the request's fault (invalid_request).
func serve[R any](args json.RawMessage, op func(R) (any, error)) (any, error) {
	var r R
	if err := json.Unmarshal(args, &r); err != nil {
		return nil, &pilotage.RequestError{Kind: pilotage.ErrInvalidRequest, Message: decodeMessage(err)}
	}
	return op(r)
}

// decodeMessage describes a decoding failure to the client. The type
// check has passed by then, so a type error is a number the schema calls
// an integer (2.0, 1e30) that no int holds: the message names the member
// by its JSON Pointer, as a type mismatch does, not by Go's struct field.
func decodeMessage(err error) string {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) && typeErr.Field != "" && typeErr.Type.Kind() == reflect.Int {
		return fmt.Sprintf("the arguments cannot be read: /%s: got %s, want an integer without fraction or exponent that fits in %d bits",
			strings.ReplaceAll(typeErr.Field, ".", "/"), typeErr.Value, strconv.IntSize)
	}
	return "arguments: " + err.Error()
}

func (s *Server) manifestResource() mcp.ResourceHandler {
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		m, err := s.svc.Discover(ctx)
		if err != nil {
			return nil, err
		}
		raw, err := json.Marshal(m)
		if err != nil {
			return nil, err
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: binding.ManifestURI, MIMEType: binding.JSONMediaType, Text: string(raw)}}}, nil
	}
}

// guideResource reads a guide's body through learn, under the reader's
// principal, so the resource and the tool can never disagree.
func (s *Server) guideResource(lang, id, mediaType string) mcp.ResourceHandler {
	uri := binding.GuideURI(lang, id)
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		v, err := s.svc.Learn(ctx, s.caller(req.Session, req.Extra), lang, pilotage.LearnRequest{ID: &id})
		if err != nil {
			if re, ok := err.(*pilotage.RequestError); ok && re.Kind == pilotage.ErrNotFound {
				return nil, mcp.ResourceNotFoundError(uri)
			}
			return nil, err
		}
		f, ok := v.(*pilotage.LearnFetch)
		if !ok || f.Guide.Body == nil {
			return nil, fmt.Errorf("learn %s %s: no guide body", lang, url.PathEscape(id))
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mediaType, Text: *f.Guide.Body}}}, nil
	}
}
