// Command pilotage is the toolkit and language workbench for Pilotage
// Languages. Everything it does lives in package cmd and the library
// packages it wraps.
package main

import (
	"os"

	"github.com/pilotage-dev/pilotage/cmd"
)

func main() { os.Exit(cmd.Main()) }
