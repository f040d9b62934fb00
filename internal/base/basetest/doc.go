// Package basetest holds the tests of the small internal/base packages,
// each in files named after it, so that `go test` links one binary for
// them instead of one each (docs/design.md, "How it is tested").
package basetest
