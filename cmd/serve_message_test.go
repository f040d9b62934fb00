package cmd_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServeDefaultMessageBound: without --max-message-bytes, serve reads
// messages up to the largest request a served Language takes (its limits
// memory, four times its limits program, 64 KiB), so deploy's 4 MiB and
// 64 KiB refuse a 5 MB ping unread, naming the bound, and answer the
// next; calc, at the default limits, serves the same ping.
func TestServeDefaultMessageBound(t *testing.T) {
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":"` + strings.Repeat("a", 5<<20) + `"}}`
	for _, c := range []struct{ lang, want string }{
		{"deploy", fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"line 3: the message is %d bytes, more than the %d this server reads in one line"}}`, len(ping), 4<<20+4*64<<10+64<<10)},
		{"calc", `{"jsonrpc":"2.0","id":2,"result":{}}`},
	} {
		t.Run(c.lang, func(t *testing.T) { serveAnswers(t, c.lang, ping, c.want) })
	}
}

// serveAnswers runs serve of langs/lang on standard input of a Session
// whose third line is msg, with id 2, and a ping with id 3, and wants
// want and the ping's answer among its lines: msg, however it is
// answered, does not end the Session.
func serveAnswers(t *testing.T, lang, msg, want string) {
	t.Helper()
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		msg,
		`{"jsonrpc":"2.0","id":3,"method":"ping"}`,
	}, "\n") + "\n"
	cmd := exec.Command(pilotageBinary(t), "serve", filepath.Join("..", "langs", lang, lang+".pdl"))
	cmd.Stdin = strings.NewReader(in)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, stderr.Bytes())
	}
	for _, w := range []string{want, `{"jsonrpc":"2.0","id":3,"result":{}}`} {
		if !strings.Contains(out.String(), w+"\n") {
			t.Errorf("no %s in\n%.2000s", w, out.String())
		}
	}
}

// TestServeDenseMessageRefused: a message under the bound whose values
// would cost more than the tree budget once decoded (2 MB of
// one-character values: about 20 bytes a byte as a tree) is answered
// Invalid Request before go-sdk decodes it, naming the estimate and the
// budget, and the Session goes on (docs/serve.md).
func TestServeDenseMessageRefused(t *testing.T) {
	dense := `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":[` + strings.Repeat("1,", 1<<20) + `1]}}`
	serveAnswers(t, "calc", dense, fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"line 3: the message's 1048588 values would take about 41943395 bytes as a tree, more than this server's budget for a message of %d bytes (4 bytes a byte plus 6 MiB); send fewer, larger values"}}`, len(dense)))
}

// TestServeWatchMessageBound: the default bound follows the Languages a
// --watch reload serves. calc with limits memory 64KiB and program 4KiB
// reads messages up to 144 KiB, so a 200 KB call is refused; once the
// PDL raises limits memory to 1MiB, the same call is served in the same
// Session.
func TestServeWatchMessageBound(t *testing.T) {
	dir := copyLang(t, "../langs/calc")
	pdl := filepath.Join(dir, "calc.pdl")
	src, err := os.ReadFile(pdl)
	if err != nil {
		t.Fatal(err)
	}
	limits := []byte("  limits {\n    time 1s\n")
	small := bytes.Replace(src, limits, []byte("  limits {\n    memory 64KiB\n    program 4KiB\n    time 1s\n"), 1)
	if bytes.Equal(small, src) {
		t.Fatal("calc.pdl's limits block was not found")
	}
	if err := os.WriteFile(pdl, small, 0o644); err != nil {
		t.Fatal(err)
	}
	c, stderr := serveStdio(t, pdl, "--watch", "--watch-interval", "50ms")
	call := func() error {
		_, err := c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "calc_v1_validate",
			Arguments: map[string]any{"program": map[string]any{"steps": []any{}, "output": "1"}, "note": strings.Repeat("a", 200_000)}})
		return err
	}
	if err := call(); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("more than the %d this server reads", 64<<10+4*4<<10+64<<10)) {
		t.Fatalf("a 200 KB call under a 144 KiB bound: %v", err)
	}
	raised := bytes.Replace(small, []byte("memory 64KiB"), []byte("memory 1MiB"), 1)
	if err := os.WriteFile(pdl, raised, 0o644); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(stderr.String(), "pilotage serve: reloaded"); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no reload after raising the limits; stderr: %s", stderr.String())
		}
	}
	if err := call(); err != nil {
		t.Errorf("the same call once limits memory is 1MiB: %v", err)
	}
}
