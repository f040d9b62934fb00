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
	"github.com/pilotage-dev/pilotage/workbench/binding"
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

// stdioTransport serves s by ServeIO — the code path of `pilotage serve`
// on stdin/stdout, newline-delimited JSON with its drain — over OS pipes,
// without a child process, and returns the client's end.
func stdioTransport(b *testing.B, s *Server) mcp.Transport {
	cr, sw, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	sr, cw, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.ServeIO(context.Background(), sr, sw) }()
	b.Cleanup(func() {
		cw.Close()
		if err := <-done; err != nil {
			b.Error(err)
		}
		sw.Close()
	})
	return &mcp.IOTransport{Reader: cr, Writer: cw}
}

// BenchmarkRoundTrip measures what the MCP binding adds to validate and
// execute of a 50-step program, against a no-op tool on the same go-sdk
// server in the same run (docs/performance.md, "serve"). Five phases run
// interleaved in rounds, so that drift in the machine's load falls on all
// of them alike:
//
//   - noop: an empty tool, {} in, "{}" out;
//   - echo: a tool that does nothing but answer a recorded copy of the
//     real response to the same arguments: what go-sdk spends moving the
//     payload, the least any binding of this response can cost;
//   - mcp: the real tool over the transport;
//   - binding: the real tool's handler called in process, without go-sdk
//     (argument checks, decoding, the engine, encoding the result);
//   - direct: the engine call alone.
func BenchmarkRoundTrip(b *testing.B) {
	prog := program50()
	for _, transport := range []string{"inmemory", "stdio"} {
		b.Run(transport, func(b *testing.B) {
			ctx := context.Background()
			eng := homeflowEngine(b)
			s, err := New(ctx, eng, Options{Principal: "owner"})
			if err != nil {
				b.Fatal(err)
			}
			s.MCP().AddTool(&mcp.Tool{Name: "noop", InputSchema: map[string]any{"type": "object"}},
				func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "{}"}}}, nil
				})
			var ct mcp.Transport
			if transport == "stdio" {
				ct = stdioTransport(b, s)
			} else {
				var st mcp.Transport
				ct, st = mcp.NewInMemoryTransports()
				if _, err := s.MCP().Connect(ctx, st, nil); err != nil {
					b.Fatal(err)
				}
			}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			manifest, err := eng.Discover(ctx)
			if err != nil {
				b.Fatal(err)
			}
			caller := service.Caller{Principal: "owner", Session: "bench"}
			ops := []struct {
				op     binding.Op
				args   map[string]any
				direct func() error
			}{
				{binding.Validate, map[string]any{"program": prog}, func() error {
					r, err := eng.Validate(ctx, caller, "homeflow/v1", pilotage.ValidateRequest{Program: prog})
					if err == nil && !r.Valid {
						err = fmt.Errorf("invalid: %v", r.Diagnostics)
					}
					return err
				}},
				{binding.Execute, map[string]any{"program": prog, "store": false}, func() error {
					f := false
					r, err := eng.Execute(ctx, caller, "homeflow/v1", pilotage.ExecuteRequest{Program: prog, Store: &f})
					if err == nil && !r.Outcome.OK {
						err = fmt.Errorf("run: %+v", r.Outcome)
					}
					return err
				}},
			}
			for _, op := range ops {
				b.Run(string(op.op), func(b *testing.B) {
					tool := "homeflow_v1_" + string(op.op)
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: op.args})
					if err != nil {
						b.Fatal(err)
					}
					recorded, _ := json.Marshal(res.StructuredContent)
					echo := "echo_" + string(op.op)
					s.MCP().AddTool(&mcp.Tool{Name: echo, InputSchema: map[string]any{"type": "object"}},
						func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
							return &mcp.CallToolResult{StructuredContent: json.RawMessage(recorded), Content: []mcp.Content{&mcp.TextContent{Text: string(recorded)}}}, nil
						})
					def, err := s.defs[string(op.op)].forLanguage(manifest.Languages[0])
					if err != nil {
						b.Fatal(err)
					}
					handler := s.opHandler("homeflow/v1", op.op, def)
					rawArgs, _ := json.Marshal(op.args)
					call := func(name string, args any) func() error {
						return func() error {
							res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
							if err == nil && res.IsError {
								err = fmt.Errorf("%s: %v", name, res.StructuredContent)
							}
							return err
						}
					}
					costs := interleaved(b, []func() error{
						call("noop", map[string]any{}),
						call(echo, op.args),
						call(tool, op.args),
						func() error {
							res, err := handler(ctx, &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: tool, Arguments: rawArgs}})
							if err == nil && res.IsError {
								err = fmt.Errorf("%v", res.StructuredContent)
							}
							return err
						},
						op.direct,
					})
					noop, echoed, viaMCP, handled, direct := costs[0], costs[1], costs[2], costs[3], costs[4]
					b.ReportMetric(noop.cpu, "noop-cpu-µs")
					b.ReportMetric(echoed.cpu, "echo-cpu-µs")
					b.ReportMetric(viaMCP.cpu, "mcp-cpu-µs")
					b.ReportMetric(handled.cpu, "binding-cpu-µs")
					b.ReportMetric(direct.cpu, "direct-cpu-µs")
					b.ReportMetric((viaMCP.cpu-direct.cpu)/noop.cpu, "overhead/noop")
					b.ReportMetric((viaMCP.cpu-direct.cpu)/echoed.cpu, "overhead/echo")
					b.ReportMetric(echoed.cpu/noop.cpu, "echo/noop")
					b.ReportMetric((handled.cpu-direct.cpu)/noop.cpu, "binding/noop")
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

// interleaved runs each phase b.N times, in rounds of a few calls per
// phase, and returns each phase's cost per call. CPU time is read from the
// process's rusage around each round, because on a shared machine wall
// time mostly measures the other tenants; the wall median is kept for
// comparison.
func interleaved(b *testing.B, phases []func() error) []cost {
	b.Helper()
	const round = 10
	cpu := make([]time.Duration, len(phases))
	walls := make([][]time.Duration, len(phases))
	for done := 0; done < b.N; done += round {
		n := min(round, b.N-done)
		for i, f := range phases {
			before := cpuTime(b)
			for range n {
				t0 := time.Now()
				if err := f(); err != nil {
					b.Fatal(err)
				}
				walls[i] = append(walls[i], time.Since(t0))
			}
			cpu[i] += cpuTime(b) - before
		}
	}
	out := make([]cost, len(phases))
	for i := range phases {
		slices.Sort(walls[i])
		out[i] = cost{cpu: float64(cpu[i].Microseconds()) / float64(b.N), wall: float64(walls[i][len(walls[i])/2].Microseconds())}
	}
	return out
}

func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
