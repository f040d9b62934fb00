package picture

import (
	"bytes"
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/pilotage-dev/pilotage/internal/testsupport/golden"
)

// chromium finds the headless browser the page tests open reports in.
// Without one they are skipped, saying so, except in CI (CI=true), where
// .ci/run installs Debian's chromium and a missing browser is a failure.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no chromium on PATH; CI must install it (apt-get install -y chromium, as .ci/run does)")
	}
	t.Skip("test skipped: no chromium on PATH to open the reports in (apt-get install -y chromium)")
	return ""
}

// browser is one headless Chromium with what its pages did: console
// errors, uncaught exceptions and every request they made.
type browser struct {
	ctx      context.Context
	mu       sync.Mutex
	errors   []string
	requests []string
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	if testing.Short() {
		t.Skip("test skipped in -short: it starts a browser")
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium(t)),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 1024),
	}
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel2 := chromedp.NewContext(actx)
	t.Cleanup(cancel2)
	ctx, cancel3 := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(cancel3)
	b := &browser{ctx: ctx}
	err := chromedp.Listen(ctx, func(ev any) {
		b.mu.Lock()
		defer b.mu.Unlock()
		switch ev := ev.(type) {
		case *network.EventRequestWillBeSent:
			b.requests = append(b.requests, ev.Request.URL)
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				b.errors = append(b.errors, "console."+string(ev.Type)+": "+strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			b.errors = append(b.errors, "exception: "+ev.ExceptionDetails.Text)
		case *cdplog.EventEntryAdded:
			// The browser's own reports: a blocked load, a violated
			// Content-Security-Policy, a resource that failed.
			if ev.Entry.Level == "error" || ev.Entry.Level == "warning" {
				b.errors = append(b.errors, "log: "+ev.Entry.Text+" "+ev.Entry.URL)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// open loads the page at path and checks what a person would notice
// first: nothing was fetched but the page, nothing went wrong in it.
func (b *browser) open(t *testing.T, path string) {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	page := (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
	b.mu.Lock()
	b.requests, b.errors = nil, nil
	b.mu.Unlock()
	if err := chromedp.Do(b.ctx, chromedp.Navigate(page), chromedp.WaitReady("body")); err != nil {
		t.Fatal(err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, r := range b.requests {
		if r != page {
			t.Errorf("the page requested %s; a report fetches nothing", r)
		}
	}
	for _, e := range b.errors {
		t.Errorf("the page logged %s", e)
	}
}

// eval runs js in the page and returns its value.
func eval[T any](t *testing.T, b *browser, js string, opts ...chromedp.EvaluateOption) T {
	t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](js, opts...))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

// screenshot saves the whole page as PNG in the test's artifact
// directory (go test -artifacts keeps it, under -outputdir), and returns
// its path so a reviewer can look at it.
func (b *browser) screenshot(t *testing.T, name string) {
	t.Helper()
	png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Fatalf("screenshot is not a PNG")
	}
	path := filepath.Join(t.ArtifactDir(), name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// shownNodes are the first lines of the graph's visible boxes: the step
// ids as a person reads them.
const shownNodes = `[...document.querySelectorAll('#graph g.node')].filter(g => {
  const r = g.getBoundingClientRect(); return r.width > 0 && r.height > 0
}).map(g => g.querySelector('text').textContent)`

// TestReplayPageInBrowser opens the replay report as a person would and
// checks what they see: every plan step a visible box, the path the Runs
// took marked, the findings shown on their steps with links that lead to
// the files, and a page that fetched nothing and logged no error.
func TestReplayPageInBrowser(t *testing.T) {
	b := newBrowser(t)
	dir := t.TempDir()
	p := replayPage(t, replayDir, dir, "success.json", "divergent.json")
	var html bytes.Buffer
	if err := p.WriteHTML(&html); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "report.html")
	if err := os.WriteFile(page, html.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	b.open(t, page)
	b.screenshot(t, "replay")

	shown := eval[[]string](t, b, shownNodes)
	for _, n := range p.graph.Nodes {
		found := false
		for _, s := range shown {
			found = found || s == n.ID
		}
		if !found {
			t.Errorf("step %q is not a visible box of the graph (boxes: %q)", n.ID, shown)
		}
	}
	taken := eval[int](t, b, `document.querySelectorAll('#graph g.edge.taken').length`)
	flagged := eval[int](t, b, `document.querySelectorAll('#graph g.node.flagged').length`)
	findings := eval[int](t, b, `[...document.querySelectorAll('tr.flagged .finding')].filter(f => f.offsetHeight > 0).length`)
	if taken == 0 || flagged != 2 || findings != 2 {
		t.Errorf("taken edges %d (want some), flagged boxes %d (want 2: read and fan), visible findings %d (want 2)", taken, flagged, findings)
	}
	// A flagged box links to its step's row, where its findings are.
	target := eval[string](t, b, `(() => { const a = document.querySelector('#graph g.node.flagged a'); const id = a.getAttribute('href') || a.getAttribute('xlink:href'); return document.querySelector(id) ? id : 'missing ' + id })()`)
	if !strings.HasPrefix(target, "#detail-") {
		t.Errorf("a flagged box links to %s, not to a step's row", target)
	}
	links := eval[[]string](t, b, `[...document.querySelectorAll('a.loc')].map(a => a.href)`)
	if len(links) == 0 {
		t.Fatal("no finding or trace links")
	}
	for _, l := range links {
		u, err := url.Parse(l)
		if err != nil || u.Scheme != "file" {
			t.Errorf("link %s is not a file beside the report", l)
			continue
		}
		if _, err := os.Stat(filepath.FromSlash(u.Path)); err != nil {
			t.Errorf("link %s does not resolve: %v", l, err)
		}
	}
}

// TestTimelinePageInBrowser opens a Run's timeline: one visible bar per
// entry, the failed step marked, the narration shown.
func TestTimelinePageInBrowser(t *testing.T) {
	b := newBrowser(t)
	b.open(t, "testdata/timeline/timeline-fetched.html")
	b.screenshot(t, "timeline")
	bars := eval[int](t, b, `[...document.querySelectorAll('tr.entry .bar span')].filter(s => s.getBoundingClientRect().width > 0).length`)
	failed := eval[int](t, b, `document.querySelectorAll('tr.entry[data-ok=false] .bar span.failed').length`)
	narration := eval[string](t, b, `document.querySelector('#narration').innerText`)
	if bars != 9 || failed != 1 || !strings.Contains(narration, "<b>off</b>") {
		t.Errorf("visible bars %d (want 9), failed bars %d (want 1), narration %q (want its text, markup shown as text)", bars, failed, narration)
	}
}

// TestMermaidParses renders the Mermaid goldens with Mermaid itself (from
// npm) in the same browser: GitHub draws these texts, so a syntax error
// would show as an error box where the picture should be.
func TestMermaidParses(t *testing.T) {
	b := newBrowser(t)
	const version = "12.3.0"
	prefix := golden.NPMInstall(t, "mermaid-"+version, "node_modules/mermaid/dist/mermaid.min.js", "mermaid@"+version)
	script := filepath.Join(prefix, "node_modules", "mermaid", "dist", "mermaid.min.js")
	files, _ := filepath.Glob("../../docs/pictures/*.mmd")
	more, _ := filepath.Glob("testdata/*.mmd")
	files = append(files, more...)
	p := replayPage(t, replayDir, replayDir, "success.json", "divergent.json")
	var md bytes.Buffer
	if err := p.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	_, block, _ := strings.Cut(md.String(), "```mermaid\n")
	block, _, _ = strings.Cut(block, "```")
	dir := t.TempDir()
	overlay := filepath.Join(dir, "replay.mmd")
	if err := os.WriteFile(overlay, []byte(block), 0o644); err != nil {
		t.Fatal(err)
	}
	files = append(files, overlay)
	page := filepath.Join(dir, "mermaid.html")
	src := `<!DOCTYPE html><html><head><meta charset="utf-8"><script src="` + (&url.URL{Scheme: "file", Path: filepath.ToSlash(script)}).String() +
		`"></script></head><body><div id="out"></div><script>mermaid.initialize({startOnLoad: false, securityLevel: 'strict'});</script></body></html>`
	if err := os.WriteFile(page, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(b.ctx, chromedp.Navigate("file://"+filepath.ToSlash(page)), chromedp.WaitReady("body")); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		js := `mermaid.render('m' + Math.floor(Math.random()*1e9), ` + jsString(string(text)) + `).then(r => { document.getElementById('out').innerHTML = r.svg; return 'ok ' + document.querySelectorAll('#out g.node').length }, e => 'error: ' + e.message)`
		res := eval[string](t, b, js, chromedp.EvalAwaitPromise)
		if !strings.HasPrefix(res, "ok ") || res == "ok 0" {
			t.Errorf("%s: Mermaid %s: %s", f, version, res)
		}
	}
	b.screenshot(t, "mermaid-last")
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, "`", "\\`", "$", `\$`)
	return "`" + r.Replace(s) + "`"
}
