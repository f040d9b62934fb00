// Package scaffold writes a new Language from an embedded template: the
// files `pilotage init` starts an author with, each one real, linted and
// tested where it lives (templates/).
package scaffold

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pilotage-dev/pilotage/internal/base/suggest"
)

//go:embed templates
var templates embed.FS

// Templates lists the template names, sorted.
func Templates() []string {
	ents, _ := fs.ReadDir(templates, "templates")
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// Params are what Init writes and where.
type Params struct {
	Dir      string // created when missing
	Template string // one of Templates()
}

// ExistsError names a file Init would have overwritten: it writes
// nothing then.
type ExistsError struct{ Path string }

func (e *ExistsError) Error() string {
	return fmt.Sprintf("%s already exists; pilotage init never overwrites a file (choose an empty or new DIR)", e.Path)
}

// Init writes the template's files under p.Dir and returns their paths,
// in the template's order. Every target is checked before the first is
// written, so a refusal leaves the directory as it was.
func Init(p Params) ([]string, error) {
	if !slices.Contains(Templates(), p.Template) {
		near := ""
		if c := suggest.Closest(p.Template, Templates()); c != "" {
			near = fmt.Sprintf(" (did you mean %q?)", c)
		}
		return nil, fmt.Errorf("unknown template %q%s; the templates are %s", p.Template, near, strings.Join(Templates(), ", "))
	}
	root := path.Join("templates", p.Template)
	var files []string
	err := fs.WalkDir(templates, root, func(name string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, name)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	var written []string
	for _, f := range files {
		rel, _ := filepath.Rel(root, f)
		target := filepath.Join(p.Dir, filepath.FromSlash(rel))
		if _, err := os.Lstat(target); err == nil {
			return nil, &ExistsError{Path: target}
		}
		written = append(written, target)
	}
	for i, f := range files {
		src, err := templates.ReadFile(f)
		if err != nil {
			return nil, err
		}
		if err := os.MkdirAll(filepath.Dir(written[i]), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(written[i], src, 0o644); err != nil {
			return nil, err
		}
	}
	return written, nil
}
