package cmd_test

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeDefaultMessageBound: without --max-message-bytes, serve reads
// messages up to the largest request a served Language takes (its limits
// memory, four times its limits program, 64 KiB), so deploy's 4 MiB and
// 64 KiB refuse a 5 MB ping unread, naming the bound, and answer the
// next; calc, at the default limits, serves the same ping.
func TestServeDefaultMessageBound(t *testing.T) {
	bin := pilotageBinary(t)
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":"` + strings.Repeat("a", 5<<20) + `"}}`
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		ping,
		`{"jsonrpc":"2.0","id":3,"method":"ping"}`,
	}, "\n") + "\n"
	for _, c := range []struct{ lang, want string }{
		{"deploy", fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"line 3: the message is %d bytes, more than the %d this server reads in one line"}}`, len(ping), 4<<20+4*64<<10+64<<10)},
		{"calc", `{"jsonrpc":"2.0","id":2,"result":{}}`},
	} {
		t.Run(c.lang, func(t *testing.T) {
			cmd := exec.Command(bin, "serve", filepath.Join("..", "langs", c.lang, c.lang+".pdl"))
			cmd.Stdin = strings.NewReader(in)
			var out, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("%v\n%s", err, stderr.Bytes())
			}
			for _, want := range []string{c.want, `{"jsonrpc":"2.0","id":3,"result":{}}`} {
				if !strings.Contains(out.String(), want+"\n") {
					t.Errorf("no %s in\n%.2000s", want, out.String())
				}
			}
		})
	}
}
