package conform

import (
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pilotage-dev/pilotage/internal/base/ruleset"
	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
	"github.com/pilotage-dev/pilotage/internal/testsupport/ruletest"
)

// Every command docs/conform.md shows is run by an end-to-end script
// (cmd/testdata/script/conform*.txtar), so the page never shows a command
// that does not work.
func TestDocsCommandsAreRun(t *testing.T) {
	scripts, err := filepath.Glob("../../cmd/testdata/script/conform*.txtar")
	if err != nil || len(scripts) == 0 {
		t.Fatalf("no conform scripts: %v", err)
	}
	var all strings.Builder
	for _, s := range scripts {
		all.Write(readFile(t, s))
	}
	n := 0
	for _, block := range golden.Blocks(t, "../../docs/conform.md", "sh", 2) {
		for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
			n++
			if !strings.Contains(all.String(), "exec "+line+"\n") {
				t.Errorf("docs/conform.md shows %q, which no conform script runs", line)
			}
		}
	}
	if n < 3 {
		t.Fatalf("found %d commands in docs/conform.md; the extraction is broken", n)
	}
}

// Over streamable HTTP with a bearer token (--http URL --token T), the
// reference server is clean too, and the catalog read is the token's
// principal's (§10.3): the guest sees fewer entries than the owner.
func TestHTTPWithToken(t *testing.T) {
	res := homeflow(t)
	items := map[string]int{}
	for _, token := range []string{"owner-token", "guest-token"} {
		hs := httptest.NewServer(reference(t, res, "").HTTPHandler(map[string]string{"owner-token": "owner", "guest-token": "guest"}))
		t.Cleanup(hs.Close)
		dir := t.TempDir()
		rep := check(t, HTTP(hs.URL, token), Options{Dir: dir})
		if len(rep.Findings) != 0 {
			t.Fatalf("%s: findings:\n%s", token, findings(rep))
		}
		items[token] = strings.Count(string(readFile(t, filepath.Join(dir, "snapshot.json"))), `"risk_hints"`)
	}
	if items["guest-token"] >= items["owner-token"] || items["guest-token"] == 0 {
		t.Errorf("catalog items read: %v; the guest should see some, fewer than the owner", items)
	}
}

// TestRuleShape: every rule is found from its ID in one step: its file
// <id>_rule.go, its section of docs/conform.md and its fixture,
// testdata/rules/<id>.golden, the findings of the rule on a server that
// breaks it (fixtureOf, ruleFixture).
func TestRuleShape(t *testing.T) {
	ruletest.RuleShape(t, filepath.Join("..", ".."), registry)
}

// TestRulesTable keeps the rule table of docs/conform.md equal to the
// registry; go test -update rewrites it.
func TestRulesTable(t *testing.T) {
	golden.Generated(t, filepath.Join("..", "..", "docs", "conform.md"), "rules",
		[]byte(ruleset.Table(registry.Infos(), func(id string) string { return "#" + id })))
}
