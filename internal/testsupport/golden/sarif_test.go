package golden

import (
	"strings"
	"testing"
)

// ValidSARIF accepts a minimal SARIF 2.1.0 log and refuses one the schema
// must refuse (a driver without a name, a level SARIF has not), so the
// validation the verbs' tests rely on is not vacuous.
func TestValidSARIF(t *testing.T) {
	SARIFSchema(t) // skips here, not in the recorder, without npm
	const ok = `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"pilotage"}},"results":[]}]}`
	run(t, func(tb testing.TB) { ValidSARIF(tb, "the minimal log", []byte(ok)) }).expect(t, false)
	const bad = `{"version":"2.1.0","runs":[{"tool":{"driver":{}},"results":[{"level":"fatal","message":{"text":"x"}}]}]}`
	run(t, func(tb testing.TB) { ValidSARIF(tb, "the bad log", []byte(bad)) }).expect(t, false, "the bad log is not valid SARIF 2.1.0")
	// Formats are asserted: an artifact location must be a URI reference,
	// so a file name with a space must be escaped.
	const space = `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"pilotage"}},"results":[{"message":{"text":"x"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"my file.json"}}}]}]}]}`
	run(t, func(tb testing.TB) { ValidSARIF(tb, "the unescaped name", []byte(space)) }).expect(t, false, "the unescaped name is not valid SARIF 2.1.0", "must be percent-encoded")
	escaped := strings.Replace(space, "my file.json", "my%20file%2a.json", 1)
	run(t, func(tb testing.TB) { ValidSARIF(tb, "the escaped name", []byte(escaped)) }).expect(t, false)
	percent := strings.Replace(space, "my file.json", "100%.json", 1)
	run(t, func(tb testing.TB) { ValidSARIF(tb, "the bare percent", []byte(percent)) }).expect(t, false, "starts no percent-encoding")
	run(t, func(tb testing.TB) { ValidSARIF(tb, "the text", []byte("0 errors")) }).expect(t, false, "the text is not JSON")
}
