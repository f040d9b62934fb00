package pilotage_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// TestDocLinksResolve checks every relative link and image of README.md and
// docs/**/*.md: the file it names exists, and a #fragment names a heading
// of the target page by the slug GitHub gives it. A reader who follows a
// link lands where the page said.
func TestDocLinksResolve(t *testing.T) {
	pages := []string{"README.md"}
	err := filepath.WalkDir("docs", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			pages = append(pages, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]map[string]bool{}
	checked := 0
	for _, page := range pages {
		for _, dest := range mdLinks(t, page) {
			u, err := url.Parse(dest)
			if err != nil {
				t.Errorf("%s: link %q does not parse: %v", page, dest, err)
				continue
			}
			if u.Scheme != "" || u.Host != "" {
				continue
			}
			checked++
			target := page
			if u.Path != "" {
				target = filepath.Join(filepath.Dir(page), filepath.FromSlash(u.Path))
				if _, err := os.Stat(target); err != nil {
					t.Errorf("%s: link %q: %s does not exist", page, dest, target)
					continue
				}
			}
			if u.Fragment == "" {
				continue
			}
			if !strings.HasSuffix(target, ".md") {
				t.Errorf("%s: link %q has a fragment into a file that is not Markdown", page, dest)
				continue
			}
			if anchors[target] == nil {
				anchors[target] = mdAnchors(t, target)
			}
			if !anchors[target][u.Fragment] {
				t.Errorf("%s: link %q: %s has no heading with the anchor #%s", page, dest, target, u.Fragment)
			}
		}
	}
	// The documentation links its pages together in hundreds of places; a
	// walk that finds few has stopped reading links, not found them fine.
	if checked < 100 {
		t.Fatalf("checked only %d relative links in %d pages; link extraction is broken", checked, len(pages))
	}
}

// TestDocLinksCatchBreakage shows the checker's two halves fail on a broken
// page: a missing file and an anchor no heading has.
func TestDocLinksCatchBreakage(t *testing.T) {
	src := []byte("# Top `code` Title!\n\n## Top code Title\n\n[a](missing.md) [b](#top-code-title-1) ![c](img.png)\n\n[r]: ref.md\n\nsee [r]\n")
	got := mdLinksIn(t, src)
	want := []string{"missing.md", "#top-code-title-1", "img.png", "ref.md"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("links = %q, want %q", got, want)
	}
	a := mdAnchorsIn(t, src)
	for _, id := range []string{"top-code-title", "top-code-title-1"} {
		if !a[id] {
			t.Errorf("anchor %q missing from %v", id, a)
		}
	}
	if a["top-code-title-2"] {
		t.Errorf("anchor top-code-title-2 invented: %v", a)
	}
}

func mdLinks(t *testing.T, path string) []string {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return mdLinksIn(t, src)
}

func mdAnchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return mdAnchorsIn(t, src)
}

// mdLinksIn returns the destination of every link and image, in order;
// reference links arrive resolved, so their definitions are checked too.
func mdLinksIn(t *testing.T, src []byte) []string {
	t.Helper()
	var dests []string
	walkMarkdown(t, src, func(n ast.Node) {
		switch n := n.(type) {
		case *ast.Link:
			dests = append(dests, string(n.Destination))
		case *ast.Image:
			dests = append(dests, string(n.Destination))
		}
	})
	return dests
}

// mdAnchorsIn returns the anchors GitHub gives the page's headings: the
// text lower-cased, punctuation other than '-' and '_' dropped, spaces
// turned into '-', and a repeated slug numbered -1, -2, ….
func mdAnchorsIn(t *testing.T, src []byte) map[string]bool {
	t.Helper()
	anchors := map[string]bool{}
	seen := map[string]int{}
	walkMarkdown(t, src, func(n ast.Node) {
		h, ok := n.(*ast.Heading)
		if !ok {
			return
		}
		var b strings.Builder
		for _, r := range strings.ToLower(plainText(h, src)) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r):
				b.WriteRune(r)
			}
		}
		slug := b.String()
		if k := seen[slug]; k > 0 {
			anchors[fmt.Sprintf("%s-%d", slug, k)] = true
		} else {
			anchors[slug] = true
		}
		seen[slug]++
	})
	return anchors
}

func walkMarkdown(t *testing.T, src []byte, visit func(ast.Node)) {
	t.Helper()
	doc := goldmark.New().Parser().Parse(text.NewReader(src))
	err := ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			visit(n)
		}
		return ast.WalkContinue, nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// plainText is the text a heading shows, code spans included.
func plainText(n ast.Node, src []byte) string {
	var b bytes.Buffer
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(src))
			if c.SoftLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(c.Value)
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}
