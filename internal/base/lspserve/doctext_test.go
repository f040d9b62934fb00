package lspserve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/pilotage-dev/pilotage/internal/testsupport/memtest"
)

// unquote decodes a JSON string as encoding/json decodes it into a
// string: escapes, surrogate pairs, and U+FFFD for invalid UTF-8 and
// lone surrogates.
func TestUnquote(t *testing.T) {
	for _, lit := range []string{`""`, `"plain"`, `"a\nb\tc\"d\\e\/f\b\f\r"`, `"\u00e9t\u00C9"`, `"\ud83d\ude00"`,
		`"\ud83d"`, `"\ud83dx"`, `"\ude00\ud83d"`, `"\ud83d\u0041"`, "\"\xff\xfe ok \xe2\x82\"", `"é ✓ 😀"`, `"\u0000"`} {
		var want string
		if err := json.Unmarshal([]byte(lit), &want); err != nil {
			t.Fatalf("%s: %v", lit, err)
		}
		got, err := unquote([]byte(lit))
		if err != nil || string(got) != want {
			t.Errorf("unquote(%s) = %q, %v; want %q", lit, got, err, want)
		}
	}
	for _, bad := range []string{``, `"`, `x`, `"\"`, `"\q"`, `"\u12"`, `"\u12g4"`} {
		if _, err := unquote([]byte(bad)); err == nil {
			t.Errorf("unquote(%s): no error", bad)
		}
	}
}

// Whatever a valid JSON string holds, unquote reads it as
// encoding/json does.
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{`"a\nb"`, `"\ud83d\ude00"`, `"\ud83d"`, "\"\xff\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, lit []byte) {
		var want string
		if json.Unmarshal(lit, &want) != nil || len(lit) == 0 || lit[0] != '"' {
			return
		}
		got, err := unquote(bytes.TrimSpace(lit))
		if err != nil || string(got) != want {
			t.Errorf("unquote(%q) = %q, %v; want %q", lit, got, err, want)
		}
	})
}

// A large didOpen's text is read once, into the bytes the document
// keeps: what the server allocates reading it is about three times the
// text (the body, grown by doubling, and the text); through jsonrpc2's
// reading of the params, eighteen. A change, whole or by range, applies
// to the text so read.
func TestLargeTextReadOnce(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	var mu sync.Mutex
	analysed := map[int][]byte{}
	var memory []int64
	s := New(Options{
		Analyse: func(_, _ string, text []byte) *Analysis {
			mu.Lock()
			defer mu.Unlock()
			analysed[len(analysed)] = text
			return &Analysis{Diags: map[string][]protocol.Diagnostic{}}
		},
		Memory: func(n int64) {
			mu.Lock()
			defer mu.Unlock()
			memory = append(memory, n)
		},
	})
	done := make(chan error)
	go func() {
		done <- s.Serve(context.Background(), b, &protocol.Handler{Shutdown: func(*glsp.Context) error { return nil }})
	}()
	a.SetDeadline(time.Now().Add(30 * time.Second))
	go func() { _, _ = io.Copy(io.Discard, a) }()
	// Go's JSON writes U+2028 as \u2028.
	text := strings.Repeat("entry \"é\" {\n  name \"😀 \\ / \t \u2028\"\n}\n", 1<<15)
	uri := "file:///x/big.pdl"
	send := func(m map[string]any) {
		m["jsonrpc"] = "2.0"
		body, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		frame := fmt.Appendf(nil, "Content-Length: %d\r\n\r\n%s", len(body), body)
		runtime.GC()
		n := memtest.Allocated(func() {
			if _, err := a.Write(frame); err != nil {
				t.Fatal(err)
			}
			// The server has read the message once it reads the next.
			if _, err := a.Write([]byte("Content-Length: 2\r\n\r\n{}")); err != nil {
				t.Fatal(err)
			}
		})
		if n > 5*uint64(len(text)) {
			t.Errorf("%s of %d bytes: the server allocated %d", m["method"], len(text), n)
		}
	}
	send(map[string]any{"method": "textDocument/didOpen", "params": map[string]any{"textDocument": map[string]any{"uri": uri, "version": 1, "text": text}}})
	if got, ok := s.TextOf("/x/big.pdl"); !ok || string(got) != text {
		t.Fatalf("opened text differs (%d bytes, want %d)", len(got), len(text))
	}
	send(map[string]any{"method": "textDocument/didChange", "params": map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{"text": text + "x"}}}})
	// A small message is read through jsonrpc2, as before.
	rng := protocol.Range{Start: protocol.Position{Line: 1, Character: 8}, End: protocol.Position{Line: 1, Character: 10}}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didChange", "params": map[string]any{"textDocument": map[string]any{"uri": uri, "version": 3},
		"contentChanges": []any{map[string]any{"range": rng, "text": "E"}}}})
	fmt.Fprintf(a, "Content-Length: %d\r\n\r\n%s", len(body), body)
	fmt.Fprintf(a, "Content-Length: 2\r\n\r\n{}")
	want := strings.Replace(text, "😀", "E", 1) + "x"
	if got, _ := s.TextOf("/x/big.pdl"); string(got) != want {
		t.Fatalf("changed text differs at %d", len(bytes.TrimSuffix(got, []byte(want))))
	}
	fmt.Fprintf(a, "Content-Length: %d\r\n\r\n%s", len(`{"jsonrpc":"2.0","id":1,"method":"shutdown"}`), `{"jsonrpc":"2.0","id":1,"method":"shutdown"}`)
	a.Close()
	<-done
	mu.Lock()
	defer mu.Unlock()
	if string(analysed[len(analysed)-1]) != want {
		t.Errorf("the last analysis read another text")
	}
	// Memory was told the text's bytes for each analysis, and 0 after.
	for i, n := range memory {
		if want := int64(len(analysed[i/2])); i%2 == 0 && n != want || i%2 == 1 && n != 0 {
			t.Errorf("Memory calls %v", memory)
			break
		}
	}
}
