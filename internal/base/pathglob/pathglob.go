// Package pathglob matches slash-separated paths against glob patterns in
// which "**" stands for any number of directories, as pilotage.yaml and
// quoted command-line globs ('langs/**/*.pdl') write them; every other
// segment is a path.Match pattern.
package pathglob

import (
	"fmt"
	"path"
	"strings"
)

// Validate reports a pattern path.Match cannot read (an unclosed '[').
func Validate(pattern string) error {
	for _, seg := range strings.Split(pattern, "/") {
		if seg == "**" {
			continue
		}
		if _, err := path.Match(seg, ""); err != nil {
			return fmt.Errorf("bad pattern segment %q: %v", seg, err)
		}
	}
	return nil
}

// Match reports whether name, a slash-separated relative path, matches
// pattern. "**" matches zero or more whole segments, so "out/**" matches
// everything under out and "**/*.json" every JSON file at any depth. A
// pattern that ends in "/" matches the directory and all under it.
func Match(pattern, name string) bool {
	if strings.HasSuffix(pattern, "/") {
		pattern += "**"
	}
	return match(strings.Split(pattern, "/"), strings.Split(name, "/"))
}

// match is Match on segments, by dynamic programming over (pattern
// segment, name segment) pairs, so patterns with many "**" cost
// len(pat)×len(name) steps, never an exponential search.
func match(pat, name []string) bool {
	// ok[j] reports whether pat[i:] matches name[j:], for the current i.
	ok := make([]bool, len(name)+1)
	ok[len(name)] = true
	for i := len(pat) - 1; i >= 0; i-- {
		next := make([]bool, len(name)+1)
		if pat[i] == "**" {
			// "**" takes zero segments (ok[j]) or one more (next[j+1]).
			next[len(name)] = ok[len(name)]
			for j := len(name) - 1; j >= 0; j-- {
				next[j] = ok[j] || next[j+1]
			}
		} else {
			for j := range len(name) {
				m, _ := path.Match(pat[i], name[j])
				next[j] = m && ok[j+1]
			}
		}
		ok = next
	}
	return ok[0]
}

// HasMeta reports whether s holds a glob character, so a command-line
// argument is a pattern to expand rather than a file name.
func HasMeta(s string) bool { return strings.ContainsAny(s, "*?[") }

// Base is the directory a pattern's matches all lie under: its leading
// segments without glob characters ("." when the first has one).
func Base(pattern string) string {
	segs := strings.Split(pattern, "/")
	i := 0
	for i < len(segs)-1 && !HasMeta(segs[i]) {
		i++
	}
	if i == 0 {
		if strings.HasPrefix(pattern, "/") {
			return "/"
		}
		return "."
	}
	return strings.Join(segs[:i], "/")
}
