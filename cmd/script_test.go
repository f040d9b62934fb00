package cmd_test

import (
	"os"
	"testing"

	"github.com/pilotage-dev/pilotage/cmd"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets testscript run the pilotage binary in-process.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"pilotage": func() { os.Exit(cmd.Main()) }})
}

// TestScripts runs the end-to-end CLI scripts in testdata/script. Set
// UPDATE_SCRIPTS=1 to rewrite their golden output.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{Dir: "testdata/script", UpdateScripts: os.Getenv("UPDATE_SCRIPTS") != ""})
}
