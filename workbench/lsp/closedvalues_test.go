package lsp

import (
	"fmt"
	"strings"
	"testing"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/pilotage-dev/pilotage/internal/testsupport/lsptest"
)

// Hovering a closed-set value in a PDL file shows what the Language's
// closed-sets guide says of it (§5.3, §5.4, §5.5, §5.7), and a
// capability's sub-feature its §4.1 row and operation section, on the
// example Languages as written; a partial edit shows a reserved value.
func TestClosedValueHover(t *testing.T) {
	const ledger = "../../langs/ledger/ledger.pdl"
	edited := strings.Replace(read(t, homeflow), "fail failed when", "fail partial when", 1)
	cases := []struct {
		file, text string
		line, word string // the hover is on word, in the first line holding line
		want, not  []string
	}{
		{homeflow, "", `entry "lights.set"`, "write", []string{"**risk** `write`", "Changes device state; can be undone.", "risk_hints: readOnly=false, destructive=false, openWorld=false", "Risk levels of `homeflow/v1`", "§5.3"}, nil},
		{homeflow, "", `risk dangerous`, "dangerous", []string{"readOnly=false, destructive=true, openWorld=true", "Destroys data"}, nil},
		{homeflow, "", `entry "prog.nightly@1"`, "program", []string{"**kind** `program`", "callable: yes · promoted: yes", "§5.4"}, nil},
		{homeflow, "", `entry "living"`, "room", []string{"callable: no · promoted: no", "A room of the home"}, nil},
		{homeflow, "", `diagnostic not_callable`, "not_callable", []string{"**diagnostic code** `not_callable`", "whose kind is not callable", "Diagnostic codes of `homeflow/v1`", "§5.5"}, []string{"reserved"}},
		{homeflow, "", `status run timeout`, "timeout", []string{"**run status** `timeout`", "ok: false · side effects: possible", "Run statuses", "§5.7"}, nil},
		{homeflow, "", `fail unreachable`, "unreachable", []string{"**step status** `unreachable`", "side effects: none", "did not answer"}, nil},
		{homeflow, "", `catalog search`, "search", []string{"**catalog.search**", "free-text q", "§4.1", "§6.3"}, nil},
		{homeflow, "", `trace_fetch narrate`, "narrate", []string{"**trace_fetch.narrate**", "§6.6"}, nil},
		{homeflow, edited, `fail partial`, "partial", []string{"**run status** `partial`", "**step status** `partial`", "side effects: possible · reserved", "did not complete"}, nil},
		{ledger, "", `entry "accounts.balance"`, "book", []string{"**kind** `book`", "An operation on the books.", "callable: yes · promoted: no", "Catalog entry kinds of `ledger/v1`"}, nil},
		{ledger, "", `entry "accounts.balance"`, "safe", []string{"**risk** `safe`", "readOnly=true, destructive=false, openWorld=false", "changes nothing"}, nil},
		{ledger, "", `catalog search`, "search", []string{"**catalog.search**"}, nil},
		// A keyword stays a keyword, and a word inside a schema is no value
		// (homeflow declares a diagnostic code `type`).
		{homeflow, "", `risk write`, "risk", []string{"Declares a risk level", "§5.3"}, []string{"risk_hints"}},
		{homeflow, "", `output_schema`, "type", nil, []string{"diagnostic code"}},
	}
	c := start(t)
	uris := map[string]string{}
	for _, tc := range cases {
		src := tc.text
		if src == "" {
			src = read(t, tc.file)
		}
		key := tc.file + fmt.Sprint(tc.text != "")
		if uris[key] == "" {
			path := tc.file
			if tc.text != "" {
				path = strings.TrimSuffix(tc.file, ".pdl") + "-edited.pdl"
			}
			uris[key] = c.Open(path, src)
		}
		line, col := -1, 0
		for i, l := range strings.Split(src, "\n") {
			if j := strings.Index(l, tc.line); j >= 0 {
				line, col = i, j+strings.Index(l[j:], tc.word)
				break
			}
		}
		if line < 0 {
			t.Fatalf("%q not in %s", tc.line, tc.file)
		}
		var h *protocol.Hover
		if err := c.Call("textDocument/hover", lsptest.At(uris[key], line, col+1), &h); err != nil {
			t.Fatalf("%s %q: %v", tc.line, tc.word, err)
		}
		got := ""
		if h != nil {
			got = fmt.Sprint(h.Contents)
		}
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("hover on %q in %q lacks %q:\n%s", tc.word, tc.line, w, got)
			}
		}
		for _, w := range tc.not {
			if strings.Contains(got, w) {
				t.Errorf("hover on %q in %q has %q:\n%s", tc.word, tc.line, w, got)
			}
		}
	}
}
