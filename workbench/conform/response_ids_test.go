package conform

import (
	"strings"
	"testing"
	"time"
)

// A response is the answer to one request the client sent, with its id
// (JSON-RPC 2.0 §5): a server answering tools/list twice, and answering
// an id conform never sent (999), passed; each is a finding now, the
// second response on the request it repeats an answer to. The server
// writes both after the answer conform reads, as conform stops: they
// are checked all the same. The fixture of response-ids.
func TestResponseIDs(t *testing.T) {
	t.Parallel()
	const list = `{"jsonrpc":"2.0","id":%s,"result":{"tools":[]}}\n`
	rep := shCheck(t, `handshake '`+strings.Replace(plainInit, `{}`, `{"tools":{}}`, 1)+`'
read -r l; i=$(id)
printf '`+list+list+`{"jsonrpc":"2.0","id":999,"result":{}}\n' "$i" "$i"
drain`, 20*time.Second)
	ruleFixture(t, rep, "", RuleResponseIDs)
	if got := ruleFindings(rep, RuleResponseIDs); strings.Count(got, "error:") != 2 {
		t.Errorf("want 2 response-ids findings:\n%s", findings(rep))
	}
}
