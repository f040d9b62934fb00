package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	pilotage "github.com/pilotage-dev/pilotage"
	pdlcompile "github.com/pilotage-dev/pilotage/workbench/compile"
	"github.com/pilotage-dev/pilotage/workbench/engine"
	"github.com/pilotage-dev/pilotage/workbench/service"
)

// program50 is a 50-step homeflow program with data flow: each step
// switches the lights on or off by the previous step's output.
func program50() json.RawMessage {
	steps := []any{map[string]any{"id": "s0", "call": "lights.set", "with": map[string]any{"room": `"living"`, "on": "true"}}}
	for i := 1; i < 50; i++ {
		steps = append(steps, map[string]any{"id": fmt.Sprintf("s%d", i), "call": "lights.set",
			"with": map[string]any{"room": `"living"`, "on": fmt.Sprintf("!steps.s%d.output.on", i-1)}})
	}
	raw, _ := json.Marshal(map[string]any{"steps": steps, "output": "steps.s49.output"})
	return raw
}

// homeflowEngine serves langs/homeflow with the real engine.
func homeflowEngine(b *testing.B) *engine.Engine {
	b.Helper()
	res, err := pdlcompile.File("../../langs/homeflow/homeflow.pdl")
	if err != nil || !res.OK() {
		b.Fatalf("compile: %v %v", err, res.Findings)
	}
	eng, err := engine.New(res.Server, engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { eng.Close() })
	return eng
}

// pipeTransports connects client and server by newline-delimited JSON over
// OS pipes: the stdio framing, without a child process.
func pipeTransports(b *testing.B) (client, server mcp.Transport) {
	cr, sw, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	sr, cw, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	return &mcp.IOTransport{Reader: cr, Writer: cw}, &mcp.IOTransport{Reader: sr, Writer: sw}
}

// BenchmarkRoundTrip measures what the MCP binding adds to validate and
// execute of a 50-step program, against a no-op tool on the same go-sdk
// server in the same run. overhead/noop = (MCP cost − in-process cost) /
// no-op round trip; the target is ≤ 2 (docs/performance.md, "serve").
func BenchmarkRoundTrip(b *testing.B) {
	prog := program50()
	for _, transport := range []string{"inmemory", "stdio"} {
		b.Run(transport, func(b *testing.B) {
			eng := homeflowEngine(b)
			s, err := New(context.Background(), eng, Options{Principal: "owner"})
			if err != nil {
				b.Fatal(err)
			}
			s.MCP().AddTool(&mcp.Tool{Name: "noop", InputSchema: map[string]any{"type": "object"}},
				func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "{}"}}}, nil
				})
			var ct, st mcp.Transport
			if transport == "stdio" {
				ct, st = pipeTransports(b)
			} else {
				ct, st = mcp.NewInMemoryTransports()
			}
			ctx := context.Background()
			if _, err := s.MCP().Connect(ctx, st, nil); err != nil {
				b.Fatal(err)
			}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			caller := service.Caller{Principal: "owner", Session: "bench"}
			ops := []struct {
				name   string
				args   map[string]any
				direct func() error
			}{
				{"validate", map[string]any{"program": prog}, func() error {
					r, err := eng.Validate(ctx, caller, "homeflow/v1", pilotage.ValidateRequest{Program: prog})
					if err == nil && !r.Valid {
						err = fmt.Errorf("invalid: %v", r.Diagnostics)
					}
					return err
				}},
				{"execute", map[string]any{"program": prog, "store": false}, func() error {
					f := false
					r, err := eng.Execute(ctx, caller, "homeflow/v1", pilotage.ExecuteRequest{Program: prog, Store: &f})
					if err == nil && !r.Outcome.OK {
						err = fmt.Errorf("run: %+v", r.Outcome)
					}
					return err
				}},
			}
			for _, op := range ops {
				b.Run(op.name, func(b *testing.B) {
					noopCall := func() error {
						_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "noop", Arguments: map[string]any{}})
						return err
					}
					mcpCall := func() error {
						res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "homeflow_v1_" + op.name, Arguments: op.args})
						if err == nil && res.IsError {
							err = fmt.Errorf("%v", res.StructuredContent)
						}
						return err
					}
					// echo is a no-op of the same size: it takes the same
					// arguments and answers a recorded copy of the real
					// response, so it isolates what the SDK spends moving
					// the payload from what the binding adds.
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "homeflow_v1_" + op.name, Arguments: op.args})
					if err != nil {
						b.Fatal(err)
					}
					recorded, _ := json.Marshal(res.StructuredContent)
					echoName := "echo_" + op.name
					s.MCP().AddTool(&mcp.Tool{Name: echoName, InputSchema: map[string]any{"type": "object"}},
						func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
							return &mcp.CallToolResult{StructuredContent: json.RawMessage(recorded), Content: []mcp.Content{&mcp.TextContent{Text: string(recorded)}}}, nil
						})
					echoCall := func() error {
						_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: echoName, Arguments: op.args})
						return err
					}
					noop := measure(b, noopCall)
					echo := measure(b, echoCall)
					viaMCP := measure(b, mcpCall)
					direct := measure(b, op.direct)
					b.ReportMetric(noop.cpu, "noop-cpu-µs")
					b.ReportMetric(echo.cpu, "echo-cpu-µs")
					b.ReportMetric(viaMCP.cpu, "mcp-cpu-µs")
					b.ReportMetric(direct.cpu, "direct-cpu-µs")
					b.ReportMetric((viaMCP.cpu-direct.cpu)/noop.cpu, "cpu-overhead/noop")
					b.ReportMetric((viaMCP.cpu-direct.cpu)/echo.cpu, "cpu-overhead/echo")
					b.ReportMetric((viaMCP.wall-direct.wall)/noop.wall, "wall-overhead/noop")
					b.ReportMetric(float64(len(recorded)), "response-bytes")
				})
			}
		})
	}
}

// cost is one call's price: process CPU time (user+system, every thread,
// the MCP client's and server's goroutines included) and median wall time,
// both in µs.
type cost struct{ cpu, wall float64 }

// measure runs f b.N times as one phase. CPU time is read from the
// process's rusage around the whole phase, because on a shared machine
// wall time mostly measures the other tenants; the wall median is kept
// for comparison.
func measure(b *testing.B, f func() error) cost {
	b.Helper()
	walls := make([]time.Duration, 0, b.N)
	before := cpuTime(b)
	for range b.N {
		t0 := time.Now()
		if err := f(); err != nil {
			b.Fatal(err)
		}
		walls = append(walls, time.Since(t0))
	}
	cpu := cpuTime(b) - before
	slices.Sort(walls)
	return cost{cpu: float64(cpu.Microseconds()) / float64(b.N), wall: float64(walls[len(walls)/2].Microseconds())}
}

func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
