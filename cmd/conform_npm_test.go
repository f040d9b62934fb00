package cmd_test

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
)

// The MCP project's example servers conform is run against: MCP servers
// that know nothing of Pilotage. The versions are pinned so the exact
// finding asserted below is the one docs/conform.md reports for them.
var thirdPartyServers = []string{
	"@modelcontextprotocol/server-everything@2026.8.31",
	"@modelcontextprotocol/server-memory@2026.8.31",
}

// notPilotage is the one finding conform gives an MCP server that does
// not declare the Pilotage extension and has no pilotage_discover tool.
const notPilotage = `initialize: error: not a Pilotage server: the initialize result does not declare the Pilotage extension in capabilities.extensions (want "dev.pilotage/pilotage": {"discover":"pilotage_discover","version":"1.1"}; it declares none), and tools/list lists no tool pilotage_discover; nothing else was checked [binding-extension binding.md]`

// TestConformThirdPartyServers runs `pilotage conform` against real MCP
// servers from npm that are not Pilotage servers, over stdio and
// streamable HTTP. A user must see one short verdict (binding.md: the
// extension is declared in capabilities.extensions) and exit status 1,
// not a crash, a hang, a Go error chain or findings about the Pilotage
// tools such a server never meant to publish.
func TestConformThirdPartyServers(t *testing.T) {
	// A new pin needs a new directory.
	bin := filepath.Join(golden.NPMInstall(t, "mcp-servers-2026.8.31", "node_modules/.bin/mcp-server-memory", thirdPartyServers...), "node_modules", ".bin")
	everything := filepath.Join(bin, "mcp-server-everything")
	port := freePort(t)
	http := exec.Command(everything, "streamableHttp")
	http.Env = append(os.Environ(), "PORT="+port)
	if err := http.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = http.Process.Kill()
		_ = http.Wait()
	})
	waitListening(t, "127.0.0.1:"+port)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"everything stdio", []string{"--", everything, "stdio"}},
		{"memory stdio", []string{"--", filepath.Join(bin, "mcp-server-memory")}},
		{"everything http", []string{"--http", "http://127.0.0.1:" + port + "/mcp"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr syncBuffer
			cmd := exec.Command(pilotageBinary(t), append([]string{"conform", "--save", t.TempDir()}, tc.args...)...)
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			cmd.Env = append(os.Environ(), "MEMORY_FILE_PATH="+filepath.Join(t.TempDir(), "memory.jsonl"))
			err := cmd.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 {
				t.Fatalf("conform: %v, want exit status 1\nstdout %s\nstderr %s", err, stdout.String(), stderr.String())
			}
			lines := strings.Split(stdout.String(), "\n")
			if lines[0] != notPilotage {
				t.Errorf("first line:\n%s\nwant:\n%s", lines[0], notPilotage)
			}
			if !strings.Contains(stdout.String(), "\n1 error, 0 warnings in 1 file (checked 1 request, ") {
				t.Errorf("want one finding after one request (tools/list):\n%s", stdout.String())
			}
		})
	}
}

// freePort is a TCP port nothing listens on, for a server that takes its
// port from the environment and cannot be given port 0.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
}

// waitListening waits until addr accepts connections.
func waitListening(t *testing.T, addr string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("nothing listens on %s after 30 s: %v", addr, err)
		}
	}
}
