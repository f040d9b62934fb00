// Package verb holds what the functions behind the command-line verbs
// share: their standard streams, the error that carries an exit code,
// and reading inputs and writing outputs the way every verb does.
package verb

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/pilotage-dev/pilotage/cmd/progress"
	"github.com/pilotage-dev/pilotage/internal/base/fserr"
	"github.com/pilotage-dev/pilotage/internal/base/inputs"
	"github.com/pilotage-dev/pilotage/internal/base/jsonpos"
	"github.com/pilotage-dev/pilotage/internal/base/report"
	"github.com/pilotage-dev/pilotage/internal/base/textenc"
)

// Exit codes shared by every verb.
const (
	ExitOK       = 0 // clean
	ExitFindings = 1 // the input has error findings (or warnings with --strict)
	ExitUsage    = 2 // bad flags, unreadable input, internal failure
)

// Streams are a verb's standard streams.
type Streams struct {
	In       io.Reader
	Out, Err io.Writer
}

// ExitError carries an exit code through a verb function's error return.
type ExitError struct {
	Code int
	Err  error // nil when the verb already printed everything
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit %d", e.Code)
	}
	return e.Err.Error()
}

// Usage reports a usage or input problem (exit 2).
func Usage(format string, args ...any) error {
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf(format, args...)}
}

// Findings is returned by checking verbs whose input has findings.
var Findings = &ExitError{Code: ExitFindings}

// Code is the exit code a verb function's error stands for: 0 for nil,
// the code it carries, 2 for any other error.
func Code(err error) int {
	if err == nil {
		return ExitOK
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	return ExitUsage
}

// CheckMaxPerRule checks --max-per-rule of the verbs that report findings.
func CheckMaxPerRule(n int) error {
	if n < 1 {
		return Usage("--max-per-rule must be at least 1")
	}
	return nil
}

// Expand expands directories and globs among args into the files p
// takes, leaving out what ignored matches (it may be nil) and exclude;
// with verbose, what was skipped is named on standard error.
func Expand(s Streams, args []string, p inputs.Picker, ignored func(string) bool, verbose bool, exclude ...string) ([]string, error) {
	files, skipped, err := inputs.Expand(args, p, inputs.Options{Exclude: exclude, Ignored: ignored, Verbose: verbose})
	if verbose {
		for _, sk := range skipped {
			fmt.Fprintf(s.Err, "skipped %s: %s\n", sk.File, sk.Why)
		}
	}
	if err != nil {
		return nil, Usage("%v", err)
	}
	return files, nil
}

// WriteOutput runs write on the file -o names, or on standard output
// without -o or with -o -. The output goes to a temporary file beside
// it, renamed over it once written, so a verb that fails or is stopped
// midway (pilotage test writes its report as the cases run) leaves
// neither an empty nor a partial file, and an earlier output stays
// whole until the new one is. A name that is not a regular file
// (/dev/stderr, a pipe) is written as it goes. Both failures are usage
// errors (exit 2) that say what could not be written. A file written is
// named on standard output ("wrote FILE"), as build names what it
// wrote, so a CI log shows where the output went.
func WriteOutput(s Streams, name, what string, write func(io.Writer) error) error {
	return WriteOutputNoted(s, name, what, nil, write)
}

// IsStdout reports whether -o name is standard output.
func IsStdout(name string) bool { return name == "" || name == "-" }

// WriteOutputNoted is WriteOutput naming the file written with a note
// after it ("wrote lint.txt: 3 errors, 1 warning"): a report written to
// a file says on the terminal what it holds, so a run that exits 1 says
// why without opening it. note is asked once write is done, for a
// report whose count is known only then (pilotage test's cases).
func WriteOutputNoted(s Streams, name, what string, note func() string, write func(io.Writer) error) error {
	if IsStdout(name) {
		if err := write(s.Out); err != nil {
			return Usage("writing %s: %v", what, fserr.Plain(err))
		}
		return nil
	}
	if err := writeFile(name, write); err != nil {
		return err.usage(what)
	}
	if note != nil {
		return Printf(s, "wrote %s: %s\n", name, note())
	}
	return Printf(s, "wrote %s\n", name)
}

// outputError is a failure of writeFile: to create the file or to write
// it.
type outputError struct {
	create bool
	err    error
}

func (e *outputError) usage(what string) error {
	if e.create {
		return Usage("cannot write %s: %v", what, fserr.Plain(e.err))
	}
	return Usage("writing %s: %v", what, fserr.Plain(e.err))
}

// writeFile writes name through a temporary file renamed over it, or
// directly when name exists and is not a regular file, or is one in a
// directory where no file can be made. A new file gets
// the permissions os.Create gives under the usual umask, an existing one
// keeps its own.
func writeFile(name string, write func(io.Writer) error) *outputError {
	perm, exists := os.FileMode(0o644), false
	if fi, err := os.Stat(name); err == nil {
		if !fi.Mode().IsRegular() {
			return writeDirect(name, write)
		}
		perm, exists = fi.Mode().Perm(), true
		// A link is written through, as os.Create would: the file it
		// names is replaced, not the link.
		if real, err := filepath.EvalSymlinks(name); err == nil {
			name = real
		}
	}
	guard := GuardSignals()
	defer guard.Stop()
	var tmp *os.File
	var err error
	guard.Do(func() func() {
		if tmp, err = os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".*"); err != nil {
			return nil
		}
		// Removed once renamed, it is gone: the cleanup does nothing.
		path := tmp.Name()
		return func() { os.Remove(path) }
	})
	if err != nil && exists && errors.Is(err, fs.ErrPermission) {
		// A file that may be written in a directory that may not: as
		// before, written as it goes.
		return writeDirect(name, write)
	}
	if err != nil {
		// The temporary file's name would only puzzle: the directory
		// is what is missing or not writable.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			pe.Path = name
		}
		return &outputError{create: true, err: err}
	}
	err = write(tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), perm)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), name)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return &outputError{err: err}
	}
	return nil
}

// Guard runs cleanups if Ctrl-C or SIGTERM comes while a verb writes
// files, then raises the signal again with Go's default handling, so the
// process ends killed by it as it would have (exit 130 in a shell; the
// progress meter does the same for its line): a verb stopped while it
// writes (test writes its report as the cases run, build stages its
// files while lint judges them) leaves no temporary file beside its
// output. It watches from before the files are made: a signal between
// the two would leave them.
type Guard struct {
	mu       sync.Mutex // held by Do, and for good by a signal
	cleanups []func()
	sigs     chan os.Signal
	done     chan struct{} // closed by Stop
	over     chan struct{} // closed when the watch is over
}

// GuardSignals starts watching for Ctrl-C and SIGTERM; Stop ends it.
func GuardSignals() *Guard {
	g := &Guard{sigs: make(chan os.Signal, 1), done: make(chan struct{}), over: make(chan struct{})}
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
		// A signal the process was started ignoring (a job a script
		// starts with &) stays ignored, as the parent asked: caught, it
		// was raised again after the cleanup to end a process that
		// ignores it, which went on with the guard held for ever.
		if !signal.Ignored(sig) {
			signal.Notify(g.sigs, sig)
		}
	}
	go g.watch()
	return g
}

func (g *Guard) watch() {
	defer close(g.over)
	select {
	case sig := <-g.sigs:
		// Never unlocked: Do must not make a file the process, about to
		// end, would leave.
		g.mu.Lock()
		for _, c := range g.cleanups {
			c()
		}
		signal.Stop(g.sigs)
		raise(sig)
	case <-g.done:
		// A signal that came as Stop was called is not lost.
		select {
		case sig := <-g.sigs:
			raise(sig)
		default:
		}
	}
}

// Do runs f with the guard held, so that a signal waits for it: what f
// makes is known to the guard before its cleanup can run. The cleanup f
// returns, unless nil, runs on a signal; once what it removes is in its
// place or gone, it must do nothing.
func (g *Guard) Do(f func() (cleanup func())) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if c := f(); c != nil {
		g.cleanups = append(g.cleanups, c)
	}
}

// Stop ends the watch.
func (g *Guard) Stop() {
	signal.Stop(g.sigs)
	close(g.done)
	<-g.over
}

// raise sends sig to the process itself.
func raise(sig os.Signal) {
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		_ = p.Signal(sig)
	}
}

// writeDirect writes a name that is not a regular file as it goes.
func writeDirect(name string, write func(io.Writer) error) *outputError {
	file, err := os.OpenFile(name, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return &outputError{create: true, err: err}
	}
	err = write(file)
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return &outputError{err: err}
	}
	return nil
}

// NoStdin refuses - among the arguments of a verb that reads files only
// (build, test): without it "-" was looked up as a file named "-".
// takes names what the verb reads instead, for the hint.
func NoStdin(verb string, args []string, takes string) error {
	if slices.Contains(args, "-") {
		return Usage("%s does not read standard input (-); give %s", verb, takes)
	}
	return nil
}

// ReadInput reads a named file, or standard input for "-", within b:
// reading stops one byte past b.Bytes, so an input that never ends
// (/dev/zero, a FIFO, `cat /dev/zero |`) is a usage error naming the
// limit rather than memory that grows until the machine runs out.
func ReadInput(s Streams, name string, b inputs.Bound) ([]byte, error) {
	if name == "-" {
		src, err := inputs.ReadAll(Stdin(s), "standard input", b)
		var big *inputs.TooLargeError
		if errors.As(err, &big) {
			return nil, Usage("%v", err)
		}
		if err != nil {
			return nil, Usage("reading standard input: %v", err)
		}
		return src, nil
	}
	src, err := inputs.ReadFile(name, b)
	if err != nil {
		return nil, Usage("%v", ReadErr(err))
	}
	return src, nil
}

// Stdin is the command's standard input. When it is a terminal, a line
// on standard error says that the command waits for it: otherwise
// `pilotage lint -` typed by hand looks like a hang.
func Stdin(s Streams) io.Reader {
	if StdinIsTerminal(s) {
		fmt.Fprintln(s.Err, "pilotage: reading standard input; end it with Ctrl-D")
	}
	return s.In
}

// StdinIsTerminal reports whether the command's standard input is a
// terminal a person types into, which the null device is not.
func StdinIsTerminal(s Streams) bool {
	f, ok := s.In.(*os.File)
	return ok && progress.IsTerminal(f) && !isNullDevice(f)
}

// isNullDevice reports whether f is the null device. It is a character
// device like a terminal, which progress.IsTerminal accepts for output,
// but as input it ends at once: a command run with </dev/null (cron, CI,
// nohup) waits for no one and must not ask for Ctrl-D.
func isNullDevice(f *os.File) bool {
	st, err := f.Stat()
	if err != nil {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err == nil && os.SameFile(st, null)
}

// InputsSize is the total size of the named inputs, for a progress line;
// 0 (unknown) when one of them is standard input from a pipe or cannot
// be stated, since a percentage of part of the work would mislead.
func InputsSize(s Streams, names []string) int64 {
	var total int64
	for _, name := range names {
		var st os.FileInfo
		var err error
		if name == "-" {
			f, ok := s.In.(*os.File)
			if !ok {
				return 0
			}
			st, err = f.Stat()
		} else {
			st, err = os.Stat(name)
		}
		if err != nil || !st.Mode().IsRegular() {
			return 0
		}
		total += st.Size()
	}
	return total
}

// OneStdin rejects a command line that names standard input ("-") for
// more than one input: the second reader would meet an empty stream and
// report a puzzling "unexpected end of input" about it.
func OneStdin(names ...string) error {
	n := 0
	for _, x := range names {
		if x == "-" {
			n++
		}
	}
	if n > 1 {
		return Usage("standard input (-) can be read only once, but %d inputs name it; give the others as files", n)
	}
	return nil
}

// OutputNotInput rejects an -o FILE that is one of the command's inputs,
// or a *.json file of an input directory (replay reads those): the
// report would replace the file it reports on, as a slip of
// 'lint -o snapshot.json snapshot.json' for '-o lint.txt' would. Build
// refuses to overwrite its sources for the same reason (emit.Write).
func OutputNotInput(output string, inputs ...string) error {
	if output == "" || output == "-" {
		return nil
	}
	out, err := os.Stat(output)
	if err != nil {
		return nil // a new file replaces nothing; -o reports what stops writing it
	}
	dir, _ := os.Stat(filepath.Dir(output))
	for _, name := range inputs {
		if name == "" || name == "-" {
			continue
		}
		in, err := os.Stat(name)
		switch {
		case err != nil:
		case os.SameFile(out, in):
			return Usage("-o %s names the input %s; writing the output there would replace it: choose another output file", output, name)
		case in.IsDir() && dir != nil && os.SameFile(dir, in) && strings.HasSuffix(output, ".json"):
			return Usage("-o %s is a *.json file of the input directory %s; writing the output there would replace it: choose another output file", output, name)
		}
	}
	return nil
}

// ReadErr is fserr.Plain for a file a verb reads: a directory named where
// one file is meant (--lang, --plan, a PROGRAM) also says what to do; the
// FILE arguments of lint, replay, fmt and build are walked instead.
func ReadErr(err error) error {
	if errors.Is(err, syscall.EISDIR) {
		return fmt.Errorf("%v; name the files in it instead", fserr.Plain(err))
	}
	return fserr.Plain(err)
}

// Printf writes to the verb's standard output. A failed write (a full
// disk) is a usage error, so `pilotage fmt x.pdl > y.pdl` never exits 0
// with y.pdl cut short.
func Printf(s Streams, format string, args ...any) error {
	if _, err := fmt.Fprintf(s.Out, format, args...); err != nil {
		return Usage("writing standard output: %v", fserr.Plain(err))
	}
	return nil
}

// Reporter writes a checking verb's report and says how the verb ends:
// nil when clean, Findings when the report fails. The command line's
// brings the report under pilotage.yaml and writes it in --format.
type Reporter interface {
	Report(s Streams, rep *report.Report) error
	// Stream writes a report as its inputs are checked, each input's
	// findings as soon as none still to come can sort before them.
	Stream(s Streams, b Batches) error
}

// Batches is a report a verb writes as it checks its inputs one at a
// time (lint, replay), so a run of many files holds one file's findings.
type Batches struct {
	// Head is the report of no input: Tool, Files (every input, in the
	// order checked), Rules, KeyLabel and the Sources quoted throughout.
	// Produce completes it (Summary.Files and Checked, Rules) before it
	// returns.
	Head *report.Report
	// DropRepeats drops a finding that repeats one written before it
	// (lint: a finding in a guide that two PDL files read).
	DropRepeats bool
	// Produce checks the inputs and hands each one's report to add, with
	// the least name among the inputs still to check ("" after the last,
	// Ahead): the findings that sort before it are written. An error of
	// Produce's own ends the verb with it, after what was written.
	Produce func(add func(b *report.Report, next string) error) error
}

// Ahead returns, for each of files, the least name among the files after
// it, "" for the last: how far the report of files checked in this order
// can be written after each (Batches.Produce).
func Ahead(files []string) []string {
	out := make([]string, len(files))
	for i := len(files) - 2; i >= 0; i-- {
		out[i] = files[i+1]
		if i+1 < len(files)-1 && out[i+1] < out[i] {
			out[i] = out[i+1]
		}
	}
	return out
}

// JSONFile checks that src is one JSON value and reports where it is not,
// as "malformed JSON", the words lint, replay and conform use for the
// same bytes.
func JSONFile(name string, src []byte) (json.RawMessage, error) {
	if err := jsonpos.Check(src); err != nil {
		var se *jsonpos.SyntaxError
		if errors.As(err, &se) {
			return nil, Usage("%s:%d:%d: malformed JSON: %s", name, se.Pos.Line, se.Pos.Column, se.Msg)
		}
		return nil, Usage("%s: malformed JSON: %v", name, err)
	}
	return json.RawMessage(src), nil
}

// TextIsUTF8 refuses a text program (exit 2) at its first byte that is
// not UTF-8: the JSON string it travels as cannot hold that byte, and
// encoding/json would send U+FFFD in its place, so the engine would
// check, and could pass, a character the file does not hold.
func TextIsUTF8(name string, src []byte, text bool) error {
	if !text {
		return nil
	}
	at := textenc.InvalidUTF8(src)
	if at < 0 {
		return nil
	}
	pos := (&jsonpos.Doc{Src: src}).Position(at)
	return Usage("%s:%d:%d: the program is not UTF-8 text: byte 0x%02x is not a character; save the program as UTF-8", name, pos.Line, pos.Column, src[at])
}
