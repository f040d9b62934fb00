package golden

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The official SARIF 2.1.0 schema is third-party and may not be committed,
// so the tests take it from a registry package that ships it: the npm
// package @microsoft/jest-sarif carries the OASIS schema as
// lib/schemas/sarif-2.1.0-rtm.5.json (rtm.5 is the 2.1.0 release schema).
const (
	sarifSchemaPackage = "@microsoft/jest-sarif@1.0.0-beta.0"
	sarifSchemaFile    = "node_modules/@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json"
)

var sarif struct {
	once   sync.Once
	schema *jsonschema.Schema
	err    error
}

// SARIFSchema is the SARIF 2.1.0 schema, compiled, for the tests of every
// writer and verb that prints SARIF (`--format sarif`). It is installed
// from npm with NPMInstall, so the test is skipped, saying why, without
// node and npm or a reachable registry.
func SARIFSchema(t testing.TB) *jsonschema.Schema {
	t.Helper()
	dir := NPMInstall(t, "sarif-schema-1.0.0-beta.0", sarifSchemaFile, sarifSchemaPackage)
	sarif.once.Do(func() { sarif.schema, sarif.err = compileSchema(filepath.Join(dir, sarifSchemaFile)) })
	if sarif.err != nil {
		t.Fatalf("the SARIF schema of %s: %v", sarifSchemaPackage, sarif.err)
	}
	return sarif.schema
}

// compileSchema compiles the draft-04 schema in file, which names itself
// with "id".
func compileSchema(file string) (*jsonschema.Schema, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	id, _ := doc.(map[string]any)["id"].(string)
	c := jsonschema.NewCompiler()
	// Formats too: SARIF's artifact locations are "uri-reference"s, and
	// a file name carried unescaped (a space, a '%') is not one. Draft-04
	// knows no such format, and the validator's own accepts what Go's
	// url.Parse does (a space), so RFC 3986's is registered.
	c.AssertFormat()
	c.RegisterFormat(&jsonschema.Format{Name: "uri-reference", Validate: uriReference})
	if err := c.AddResource(id, doc); err != nil {
		return nil, err
	}
	return c.Compile(id)
}

// uriReference refuses a string with a character RFC 3986 does not
// allow in a URI reference (§2: unreserved, reserved, and '%' with two
// hex digits), such as a space or a '%' of a file name left unescaped.
func uriReference(v any) error {
	s, _ := v.(string)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return fmt.Errorf("%q: '%%' at byte %d starts no percent-encoding", s, i)
			}
			i += 2
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', strings.IndexByte("-._~:/?#[]@!$&'()*+,;=", c) >= 0:
		default:
			return fmt.Errorf("%q: byte %d (%q) must be percent-encoded", s, i, c)
		}
	}
	return nil
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// ValidSARIF fails the test when log, the bytes a writer printed, is not
// valid SARIF 2.1.0, naming it by what.
func ValidSARIF(t testing.TB, what string, log []byte) {
	t.Helper()
	s := SARIFSchema(t)
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(log))
	if err != nil {
		t.Errorf("%s is not JSON: %v", what, err)
		return
	}
	if err := s.Validate(doc); err != nil {
		t.Errorf("%s is not valid SARIF 2.1.0: %v", what, err)
	}
}
