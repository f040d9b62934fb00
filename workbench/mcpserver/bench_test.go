package mcpserver

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	pilotage "github.com/pilotage-dev/pilotage"
	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/model/binding"
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

// benchServerEnv, set in its environment, makes the test binary the
// server of the "process" transport (TestMain).
const benchServerEnv = "PILOTAGE_BENCH_SERVER"

// TestMain lets the test binary serve BenchmarkRoundTrip's "process"
// transport: started with benchServerEnv set, it serves langs/homeflow
// and the benchmark's tools on its stdin and stdout by ServeIO, as
// `pilotage serve` does, and exits when its input ends. Tests, when no
// benchmark runs, let the heap grow to five times what is live before
// collecting: every message the go-sdk decodes takes a fresh 32 KiB
// buffer, and at the default pace collection was a quarter of the
// tests' CPU. The memory tests here count what is live after a
// collection, or what was allocated, which the pace does not change;
// benchmarks run at the default pace, as serve does.
func TestMain(m *testing.M) {
	if os.Getenv(benchServerEnv) == "" {
		flag.Parse()
		if flag.Lookup("test.bench").Value.String() == "" {
			debug.SetGCPercent(400)
		}
		os.Exit(m.Run())
	}
	if err := serveBench(); err != nil {
		fmt.Fprintln(os.Stderr, "bench server:", err)
		os.Exit(1)
	}
}

func serveBench() error {
	ctx := context.Background()
	eng, err := newPDLEngine(homeflowPDL)
	if err != nil {
		return err
	}
	defer eng.Close()
	s, err := benchServer(ctx, eng)
	if err != nil {
		return err
	}
	return s.ServeIO(ctx, os.Stdin, os.Stdout)
}

// benchOps are the two operations measured, with their arguments.
var benchOps = []struct {
	op   binding.Op
	args map[string]any
}{
	{binding.Validate, map[string]any{"program": program50()}},
	{binding.Execute, map[string]any{"program": program50(), "store": false}},
}

// benchServer serves eng as the owner, with three more tools beside the
// binding's: "noop", an empty tool ({} in, "{}" out); "echo_<op>" for
// each of benchOps, a tool that does nothing but answer a recorded copy
// of the real response to the same arguments — what go-sdk spends moving
// that payload, the least any binding of it can cost; and "cputime",
// the server process's CPU time in ns, for the "process" transport.
func benchServer(ctx context.Context, eng *engine.Engine) (*Server, error) {
	s, err := New(ctx, eng, Options{Principal: "owner"})
	if err != nil {
		return nil, err
	}
	empty := map[string]any{"type": "object"}
	text := func(t string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: t}}}
	}
	s.MCP().AddTool(&mcp.Tool{Name: "noop", InputSchema: empty},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return text("{}"), nil })
	s.MCP().AddTool(&mcp.Tool{Name: "cputime", InputSchema: empty},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			ns, err := cpuTime()
			return text(strconv.FormatInt(int64(ns), 10)), err
		})
	for _, o := range benchOps {
		handler, err := s.benchHandler(ctx, o.op)
		if err != nil {
			return nil, err
		}
		args, _ := json.Marshal(o.args)
		res, err := handler(ctx, &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Arguments: args}})
		if err != nil || res.IsError {
			return nil, fmt.Errorf("%s: %v %v", o.op, err, res)
		}
		recorded := res.StructuredContent.(json.RawMessage)
		s.MCP().AddTool(&mcp.Tool{Name: "echo_" + string(o.op), InputSchema: empty},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{StructuredContent: recorded, Content: []mcp.Content{&mcp.TextContent{Text: string(recorded)}}}, nil
			})
	}
	return s, nil
}

// benchHandler is the handler of homeflow's tool for op, to call in
// process without go-sdk.
func (s *Server) benchHandler(ctx context.Context, op binding.Op) (mcp.ToolHandler, error) {
	manifest, err := s.svc.Discover(ctx)
	if err != nil {
		return nil, err
	}
	def, err := s.defs[string(op)].forLanguage(manifest.Languages[0])
	if err != nil {
		return nil, err
	}
	return s.opHandler("homeflow/v1", op, def), nil
}

// processTransport starts the test binary as the server (TestMain) and
// returns the client's end, and a clock that reads the server's CPU time
// through its cputime tool.
func processTransport(b *testing.B) (mcp.Transport, func(*mcp.ClientSession) clock) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), benchServerEnv+"=1")
	cmd.Stderr = os.Stderr
	return &mcp.CommandTransport{Command: cmd}, func(cs *mcp.ClientSession) clock {
		return func() (time.Duration, error) {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "cputime", Arguments: map[string]any{}})
			if err != nil {
				return 0, err
			}
			if len(res.Content) != 1 {
				return 0, fmt.Errorf("cputime answered %d content blocks", len(res.Content))
			}
			t, ok := res.Content[0].(*mcp.TextContent)
			if !ok {
				return 0, fmt.Errorf("cputime answered %T", res.Content[0])
			}
			ns, err := strconv.ParseInt(t.Text, 10, 64)
			return time.Duration(ns), err
		}
	}
}

// BenchmarkRoundTrip measures what the MCP binding adds to validate and
// execute of a 50-step program, against a no-op tool on the same go-sdk
// server in the same run (docs/performance.md, "serve"). Five phases run
// interleaved in rounds, so that drift in the machine's load falls on all
// of them alike:
//
//   - noop: the empty tool;
//   - echo: the tool answering a recorded copy of the real response;
//   - mcp: the real tool over the transport;
//   - binding: the real tool's handler called in process, without go-sdk
//     (argument checks, decoding, the engine, encoding the result);
//   - direct: the engine call alone.
//
// Transports: go-sdk's in-memory pipe; "stdio", ServeIO over OS pipes in
// this process; and "process", the server in a child process on its
// stdin and stdout, whose CPU time is measured apart from the client's,
// so that the server's share of a round trip can be told from go-sdk's
// client (which decodes structuredContent into a map).
func BenchmarkRoundTrip(b *testing.B) {
	for _, transport := range []string{"inmemory", "stdio", "process"} {
		b.Run(transport, func(b *testing.B) {
			ctx := context.Background()
			eng := homeflowEngine(b)
			s, err := benchServer(ctx, eng)
			if err != nil {
				b.Fatal(err)
			}
			var ct mcp.Transport
			var serverClock func(*mcp.ClientSession) clock
			switch transport {
			case "stdio":
				ct = stdioTransport(b, s)
			case "process":
				ct, serverClock = processTransport(b)
			default:
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
			var server clock
			if serverClock != nil {
				server = serverClock(cs)
			}
			caller := service.Caller{Principal: "owner", Session: "bench"}
			for _, o := range benchOps {
				b.Run(string(o.op), func(b *testing.B) {
					tool := "homeflow_v1_" + string(o.op)
					handler, err := s.benchHandler(ctx, o.op)
					if err != nil {
						b.Fatal(err)
					}
					rawArgs, _ := json.Marshal(o.args)
					res, err := handler(ctx, &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: tool, Arguments: rawArgs}})
					if err != nil {
						b.Fatal(err)
					}
					b.ReportMetric(float64(len(res.StructuredContent.(json.RawMessage))), "response-bytes")
					call := func(name string, args any) func() error {
						return func() error {
							res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
							if err == nil && res.IsError {
								err = fmt.Errorf("%s: %v", name, res.StructuredContent)
							}
							return err
						}
					}
					costs := interleaved(b, server, []func() error{
						call("noop", map[string]any{}),
						call("echo_"+string(o.op), o.args),
						call(tool, o.args),
						func() error {
							res, err := handler(ctx, &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: tool, Arguments: rawArgs}})
							if err == nil && res.IsError {
								err = fmt.Errorf("%v", res.StructuredContent)
							}
							return err
						},
						func() error { return direct(ctx, eng, caller, o.op, o.args) },
					})
					reportMetrics(b, costs[0], costs[1], costs[2], costs[3], costs[4], server != nil)
				})
			}
		})
	}
}

// direct is op on the engine, without MCP or the binding.
func direct(ctx context.Context, eng *engine.Engine, caller service.Caller, op binding.Op, args map[string]any) error {
	prog := args["program"].(json.RawMessage)
	if op == binding.Validate {
		r, err := eng.Validate(ctx, caller, "homeflow/v1", pilotage.ValidateRequest{Program: prog})
		if err == nil && !r.Valid {
			err = fmt.Errorf("invalid: %v", r.Diagnostics)
		}
		return err
	}
	store := false
	r, err := eng.Execute(ctx, caller, "homeflow/v1", pilotage.ExecuteRequest{Program: prog, Store: &store})
	if err == nil && !r.Outcome.OK {
		err = fmt.Errorf("run: %+v", r.Outcome)
	}
	return err
}

// reportMetrics turns the phases' costs into the benchmark's metrics. The
// ratios use the whole round trip, client and server; with the server in
// another process (split), the server's own share is reported too.
func reportMetrics(b *testing.B, noop, echoed, viaMCP, handled, direct cost, split bool) {
	whole := func(c cost) float64 { return c.cpu + c.server }
	b.ReportMetric(whole(noop), "noop-cpu-µs")
	b.ReportMetric(whole(echoed), "echo-cpu-µs")
	b.ReportMetric(whole(viaMCP), "mcp-cpu-µs")
	b.ReportMetric(handled.cpu, "binding-cpu-µs")
	b.ReportMetric(direct.cpu, "direct-cpu-µs")
	b.ReportMetric((whole(viaMCP)-direct.cpu)/whole(noop), "overhead/noop")
	b.ReportMetric((whole(viaMCP)-direct.cpu)/whole(echoed), "overhead/echo")
	b.ReportMetric(whole(echoed)/whole(noop), "echo/noop")
	b.ReportMetric((handled.cpu-direct.cpu)/whole(noop), "binding/noop")
	b.ReportMetric((viaMCP.wall-direct.wall)/noop.wall, "wall-overhead/noop")
	if split {
		b.ReportMetric(noop.server, "server-noop-cpu-µs")
		b.ReportMetric(echoed.server, "server-echo-cpu-µs")
		b.ReportMetric(viaMCP.server, "server-mcp-cpu-µs")
		b.ReportMetric((viaMCP.server-direct.cpu)/noop.server, "server-overhead/noop")
		b.ReportMetric(echoed.server/noop.server, "server-echo/noop")
	}
}

// cost is one call's price in µs: CPU time (user+system, every thread,
// GC included) of this process, which holds the client and, but for the
// "process" transport, the server; the server process's CPU time when it
// runs apart; and the median wall time.
type cost struct{ cpu, server, wall float64 }

// clock reads a process's CPU time.
type clock func() (time.Duration, error)

// interleaved runs each phase b.N times, in rounds of a few calls per
// phase, and returns each phase's cost per call. CPU time is read from
// rusage around each round, because on a shared machine wall time mostly
// measures the other tenants; the wall median is kept for comparison.
// With a server clock (the server in another process), each round is
// also bracketed by two readings of it: what one reading costs the
// server, measured first, is taken off each round.
func interleaved(b *testing.B, server clock, phases []func() error) []cost {
	b.Helper()
	const round = 10
	read := func(c clock) time.Duration {
		t, err := c()
		if err != nil {
			b.Fatal(err)
		}
		return t
	}
	var probe time.Duration
	if server != nil {
		const probes = 50
		t0 := read(server)
		for range probes {
			read(server)
		}
		probe = (read(server) - t0) / (probes + 1)
	}
	cpu := make([]time.Duration, len(phases))
	srv := make([]time.Duration, len(phases))
	walls := make([][]time.Duration, len(phases))
	for done := 0; done < b.N; done += round {
		n := min(round, b.N-done)
		for i, f := range phases {
			var s0 time.Duration
			if server != nil {
				s0 = read(server)
			}
			c0 := read(cpuTime)
			for range n {
				t0 := time.Now()
				if err := f(); err != nil {
					b.Fatal(err)
				}
				walls[i] = append(walls[i], time.Since(t0))
			}
			cpu[i] += read(cpuTime) - c0
			if server != nil {
				srv[i] += read(server) - s0 - probe
			}
		}
	}
	out := make([]cost, len(phases))
	perCall := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(b.N) }
	for i := range phases {
		slices.Sort(walls[i])
		out[i] = cost{cpu: perCall(cpu[i]), server: perCall(srv[i]), wall: float64(walls[i][len(walls[i])/2].Microseconds())}
	}
	return out
}

// cpuTime is this process's CPU time: user and system, every thread.
func cpuTime() (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, err
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}

// BenchmarkGuard measures what the reader's check of a message (weigh,
// jsonpos.CheckTally, which compares the member names of every object)
// costs against the scan it replaced, which compared none
// (jsonpos.ScanTally, then the same estimates): both in turn on every
// round, so that the machine's load falls on them alike, reported per
// message (scan-ns/msg, check-ns/msg) and as check/scan, each the median
// over the rounds: on a shared machine a round the scheduler took the
// core from would weigh on a mean.
func BenchmarkGuard(b *testing.B) {
	execute := func(args string) string {
		return `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"homeflow_v1_execute","arguments":` + args + `,"_meta":{"progressToken":2}}}`
	}
	args, _ := json.Marshal(map[string]any{"program": program50(), "store": false})
	var steps, members []string
	for i := range 1 << 17 {
		members = append(members, fmt.Sprintf(`"k%d":%d`, i, i))
		if i < 1<<20/72 {
			steps = append(steps, fmt.Sprintf(`{"id":"s%d","call":"lights.set","with":{"room":"\"living\"","on":"true"}}`, i))
		}
	}
	for _, m := range []struct{ name, msg string }{
		{"initialize", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{"listChanged":true},"sampling":{}},"clientInfo":{"name":"bench","version":"1"}}}`},
		{"execute-50-steps", execute(string(args))},
		{"execute-1MiB-of-steps", execute(`{"program":{"steps":[` + strings.Join(steps, ",") + `]}}`)},
		{"execute-131072-arguments", execute(`{"program":{"steps":[]},` + strings.Join(members, ",") + `}`)},
	} {
		b.Run(m.name, func(b *testing.B) {
			msg := []byte(m.msg)
			if _, bad := weigh(msg); bad != "" {
				b.Fatal(bad)
			}
			var scan, check []time.Duration
			for b.Loop() {
				start := time.Now()
				t, _ := jsonpos.ScanTally(msg)
				if t.OverBudget(len(msg)) != nil || sdkHeld(msg, t) < 0 {
					b.Fatal("the scan refuses what the check admits")
				}
				scanned := time.Now()
				weigh(msg)
				check = append(check, time.Since(scanned))
				scan = append(scan, scanned.Sub(start))
			}
			median := func(d []time.Duration) float64 {
				slices.Sort(d)
				return float64(d[len(d)/2])
			}
			b.SetBytes(int64(len(msg)))
			b.ReportMetric(median(scan), "scan-ns/msg")
			b.ReportMetric(median(check), "check-ns/msg")
			b.ReportMetric(median(check)/median(scan), "check/scan")
		})
	}
}
