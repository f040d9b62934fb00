package lspserve

import (
	"encoding/json"
	"errors"
	"strconv"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	protocol "github.com/tliron/glsp/protocol_3_16"
)

// docParams are a didOpen's or didChange's params as the server reads
// them: each text decoded once, into the bytes the document keeps. Read
// through glsp and jsonrpc2, a 3 MB text was copied six times (jsonrpc2
// decodes a request's params and encodes them again, glsp decodes the
// text into a string, the document copies it into bytes): four copies
// live at once, as much as an analysis of the text at its peak.
type docParams struct {
	TextDocument struct {
		URI     string  `json:"uri"`
		Version int32   `json:"version"`
		Text    docText `json:"text"`
	} `json:"textDocument"`
	ContentChanges []struct {
		Range *protocol.Range `json:"range"`
		Text  docText         `json:"text"`
	} `json:"contentChanges"`
}

// docText is a JSON string decoded into bytes, as encoding/json decodes
// it into a string (invalid UTF-8 and lone surrogates become U+FFFD).
type docText []byte

func (t *docText) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		return nil
	}
	b, err := unquote(data)
	*t = b
	return err
}

// unquote decodes the JSON string literal s.
func unquote(s []byte) ([]byte, error) {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return nil, errors.New("text is not a JSON string")
	}
	s = s[1 : len(s)-1]
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == '\\':
			if i+1 == len(s) {
				return nil, errors.New("text ends inside an escape")
			}
			switch e := s[i+1]; e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, ok := hex4(s[i+2:])
				if !ok {
					return nil, errors.New("text has a bad \\u escape")
				}
				i += 6
				if utf16.IsSurrogate(r) {
					if r2, ok := hex4(s[min(i+2, len(s)):]); ok && i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
						if d := utf16.DecodeRune(r, r2); d != unicode.ReplacementChar {
							out = utf8.AppendRune(out, d)
							i += 6
							continue
						}
					}
					r = unicode.ReplacementChar
				}
				out = utf8.AppendRune(out, r)
				continue
			default:
				return nil, errors.New("text has a bad escape")
			}
			i += 2
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, n := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && n == 1 {
				out = utf8.AppendRune(out, r)
			} else {
				out = append(out, s[i:i+n]...)
			}
			i += n
		}
	}
	return out, nil
}

// hex4 reads the four hex digits an escape \u starts s with.
func hex4(s []byte) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	n, err := strconv.ParseUint(string(s[:4]), 16, 32)
	return rune(n), err == nil
}

// holdFrom is the least body held aside (hold): below it the copies
// cost little.
const holdFrom = 64 << 10

// heldKey is the member of the params that stand for a held message's.
const heldKey = "pilotageHeld"

// hold reads the params of a didOpen or didChange notification body of
// holdFrom bytes or more into docParams, keeps them, and returns the
// message with params that name them, which jsonrpc2 and serve then
// read; any other body is returned as it is.
func (s *Server) hold(body []byte) []byte {
	if len(body) < holdFrom {
		return body
	}
	var head struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(body, &head) != nil || head.ID != nil ||
		(head.Method != protocol.MethodTextDocumentDidOpen && head.Method != protocol.MethodTextDocumentDidChange) {
		return body
	}
	var msg struct {
		Params *docParams `json:"params"`
	}
	if json.Unmarshal(body, &msg) != nil || msg.Params == nil {
		return body
	}
	s.mu.Lock()
	s.heldN++
	n := s.heldN
	s.held[n] = msg.Params
	s.mu.Unlock()
	out, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": head.Method, "params": map[string]int64{heldKey: n}})
	return out
}

// params are the docParams of a didOpen or didChange: those hold kept,
// or raw decoded.
func (s *Server) params(raw json.RawMessage) (*docParams, error) {
	var ref map[string]int64
	if json.Unmarshal(raw, &ref) == nil && len(ref) == 1 {
		if n, ok := ref[heldKey]; ok {
			s.mu.Lock()
			p := s.held[n]
			delete(s.held, n)
			s.mu.Unlock()
			if p != nil {
				return p, nil
			}
		}
	}
	p := &docParams{}
	return p, json.Unmarshal(raw, p)
}
