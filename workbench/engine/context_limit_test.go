package engine

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	pilotage "github.com/pilotage-dev/pilotage"
)

// TestContextBounded: a context over the Language's program limit is one
// context_binding error at its root, before it is decoded (a 16 MB one
// took 1.1 GB in validate); within it, the schema still judges it.
func TestContextBounded(t *testing.T) {
	e := newEngine(t, homeServer(), "")
	prog, _ := json.Marshal(`{"steps": [], "output": "1"}`)
	big := `{"site": "hq", "pad": [` + strings.Repeat("1,", 40<<10) + `1]}`
	for _, c := range []struct{ name, context, want string }{
		{"over the limit", big, fmt.Sprintf("context_binding : context is %d bytes; this Language reads a context of at most 65536, its program limit (limits program)", len(big))},
		{"a schema violation", `{"site": 7}`, "context_binding /site: context: got number, want string"},
		{"valid", `{"site": "hq"}`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp, err := e.Validate(bg, alice, "ctx/v1", pilotage.ValidateRequest{Program: prog, Context: raw(c.context)})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range resp.Diagnostics {
				got = append(got, d.Code+" "+d.Path.Pointer+": "+d.Message)
			}
			if strings.Join(got, "\n") != c.want {
				t.Errorf("diagnostics %q, want %q", got, c.want)
			}
		})
	}
}
