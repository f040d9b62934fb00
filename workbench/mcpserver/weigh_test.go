package mcpserver

import (
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// weigh refuses a message whose values would cost more than the tree
// budget as a tree, or as the Go values go-sdk makes of them, and
// admits a tool call's arguments of the same shape and a program as
// large as the largest a Language takes at its default limits.
func TestWeigh(t *testing.T) {
	if testing.Short() {
		t.Skip("weighs messages of megabytes; run without -short")
	}
	wide := func(n int) string { // n bytes of an object of 16-byte members
		var b strings.Builder
		b.WriteString("{")
		for i := range n / 16 {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `"k%010d":1`, i)
		}
		return b.String() + "}"
	}
	ones := "[" + strings.Repeat("1,", 1<<20) + "1]"
	step := `{"id": "s%d", "call": "lights.on", "with": {"room": "kitchen", "level": 3}}`
	steps := make([]string, 0, 1<<20/len(step))
	for i := range cap(steps) {
		steps = append(steps, fmt.Sprintf(step, i))
	}
	program := `{"steps": [` + strings.Join(steps, ", ") + `], "output": "1"}`
	call := func(args string) string {
		return `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"calc_v1_execute","arguments":` + args + `}}`
	}
	for _, c := range []struct {
		name, msg string
		code      int // 0: admitted
		says      string
	}{
		{"one-character values", `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":` + ones + `}}`, jsonrpc.CodeInvalidRequest, "values would take about 41943"},
		{"the same as a tool call's input", call(`{"input":{"x":` + ones + `}}`), jsonrpc.CodeInvalidRequest, "as a tree"},
		{"a _meta of 2 MB of members", `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"_meta":` + wide(2<<20) + `}}`, jsonrpc.CodeInvalidRequest, "other than a tool call's arguments would take about"},
		{"an initialize's capabilities of 2 MB of members", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{"experimental":` + wide(2<<20) + `}}}`, jsonrpc.CodeInvalidRequest, "once decoded"},
		{"a tool call's arguments of 2 MB of members", call(wide(2 << 20)), 0, ""},
		{"a 1 MiB program", call(`{"program":` + program + `}`), 0, ""},
		{"a 2 MB string", `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":"` + strings.Repeat("a", 2<<20) + `"}}`, 0, ""},
		{"a _meta of 10 KB", `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"_meta":` + wide(10<<10) + `}}`, 0, ""},
		{"not JSON", `{"jsonrpc":"2.0",}`, jsonrpc.CodeParseError, "not JSON at column 17: trailing comma"},
	} {
		code, bad := weigh([]byte(c.msg))
		if code != c.code || !strings.Contains(bad, c.says) {
			t.Errorf("%s (%d bytes): weigh = %d, %q; want %d, %q", c.name, len(c.msg), code, bad, c.code, c.says)
		}
	}
}
