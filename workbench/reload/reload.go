// Package reload keeps a served PDL definition current (serve --watch): it
// polls the PDL file and every file it names, recompiles on a change, and
// swaps a definition without errors in, keeping the old one otherwise.
package reload

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/pilotage-dev/pilotage/internal/base/fserr"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/workbench/compile"
)

// Options say what to watch and what to do with a new definition.
type Options struct {
	// Every is how often the files are looked at.
	Every time.Duration
	// Log receives one line per reload, refusal and notice.
	Log io.Writer
	// Swap installs a definition that compiled without errors and
	// returns what the operator should hear about it (LogNotices); an
	// error keeps the previous definition.
	Swap func(*compile.Result) ([]string, error)
	// Also are files outside the definition whose change reloads it too
	// (the pilotage.yaml serve judges it under); one that appears or
	// goes away is a change.
	Also []string
}

// Watch polls the files of res, the compiled PDL file name, until ctx
// ends, and reloads on any change of a file's size or modification time.
// It notes the files' state before it returns, so a change made once it
// has returned is never missed, and polls in a goroutine; the channel is
// closed when that ends.
func Watch(ctx context.Context, name string, res *compile.Result, opt Options) <-chan struct{} {
	done := make(chan struct{})
	seen := stamps(res, opt.Also)
	go func() {
		defer close(done)
		poll(ctx, name, res, seen, opt)
	}()
	return done
}

func poll(ctx context.Context, name string, res *compile.Result, seen map[string]stamp, opt Options) {
	t := time.NewTicker(opt.Every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := stamps(res, opt.Also)
		if equalStamps(now, seen) {
			continue
		}
		why := changedAlso(seen, now, res, opt.Also)
		seen = now
		next, rep, err := compile.Load(name, report.DefaultMaxPerRule)
		if err != nil {
			fmt.Fprintf(opt.Log, "pilotage serve: reload: %v; keeping the previous definition\n", fserr.Plain(err))
			continue
		}
		if !next.OK() {
			fmt.Fprintln(opt.Log, "pilotage serve: reload: the PDL has errors; keeping the previous definition")
			_ = report.Write(opt.Log, report.Text, rep, report.Options{})
			continue
		}
		notices, err := opt.Swap(next)
		if err != nil {
			fmt.Fprintf(opt.Log, "pilotage serve: reload: %v; keeping the previous definition\n", err)
			continue
		}
		res = next
		seen = stamps(res, opt.Also)
		// One write for the reload and its notices, so that a reader of
		// the log never sees the one without the others.
		var b strings.Builder
		fmt.Fprintf(&b, "pilotage serve: reloaded %s%s\n", name, why)
		LogNotices(&b, notices)
		_, _ = io.WriteString(opt.Log, b.String())
	}
}

// LogNotices prints one line per notice about the served definition.
func LogNotices(w io.Writer, notices []string) {
	for _, n := range notices {
		fmt.Fprintf(w, "pilotage serve: %s\n", n)
	}
}

type stamp struct {
	size int64
	mod  time.Time
}

// stamps are the sizes and times of the definition's files and of also,
// those that exist.
func stamps(res *compile.Result, also []string) map[string]stamp {
	m := map[string]stamp{}
	add := func(f string) {
		if st, err := os.Stat(f); err == nil {
			m[f] = stamp{st.Size(), st.ModTime()}
		}
	}
	for f := range res.Sources {
		add(f)
	}
	for _, f := range also {
		add(f)
	}
	return m
}

// changedAlso says, for the reload line, which file of also changed when
// none of the definition's own did: the operator edited pilotage.yaml,
// not the PDL the line names.
func changedAlso(was, now map[string]stamp, res *compile.Result, also []string) string {
	for f := range res.Sources {
		if was[f] != now[f] {
			return ""
		}
	}
	for _, f := range also {
		if was[f] != now[f] { // a file's time is never zero: absent differs
			return " (" + f + " changed)"
		}
	}
	return ""
}

func equalStamps(a, b map[string]stamp) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
