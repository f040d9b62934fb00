package golden

import (
	"bytes"
	"os"
	"path/filepath"
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
	if err := c.AddResource(id, doc); err != nil {
		return nil, err
	}
	return c.Compile(id)
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
