package inputs

import (
	"fmt"
	"io"
	"os"
)

// MaxArtifact bounds a JSON artifact read whole when nothing smaller
// applies: a manifest or snapshot given to lint, a plan or snapshot given
// to replay, a program or input conform sends to a server whose limits it
// does not know. The largest snapshot measured (docs/performance.md) is 75
// MB; a quarter of a gigabyte keeps three times that readable while an
// endless input (/dev/zero, a FIFO) stops after 0.3 s and 256 MiB instead
// of taking the machine's memory.
const MaxArtifact = 256 << 20

// Bound is the most a reader takes of one input, and why.
type Bound struct {
	// Bytes is the limit.
	Bytes int64
	// Of names where it comes from, for the error: "the Language's
	// limits program".
	Of string
	// Hint says what to do about a larger input.
	Hint string
}

// TooLargeError is the error of an input that holds more than its Bound.
type TooLargeError struct {
	Name string
	Bound
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than %s (%s); %s", e.Name, size(e.Bytes), e.Of, e.Hint)
}

// size writes n as the PDL's limits are written: 1 MiB, 64 KiB, or bytes.
func size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// ReadFile reads the file at path, or fails with a TooLargeError once it
// holds more than b.Bytes: only b.Bytes+1 bytes are ever read, so a
// device or FIFO that never ends (/dev/zero) is refused in bounded time
// and memory, while one that ends (<(echo …)) is read like a file.
func ReadFile(path string, b Bound) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var size int64
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		size = st.Size()
	}
	return read(f, path, size, b)
}

// NotRegularError is the error of ReadRegular for a path that is not a
// regular file.
type NotRegularError struct {
	Name string
	Mode os.FileMode
}

func (e *NotRegularError) Error() string {
	what := "not a regular file"
	switch {
	case e.Mode&os.ModeNamedPipe != 0:
		what = "a named pipe, not a file"
	case e.Mode&os.ModeSocket != 0:
		what = "a socket, not a file"
	case e.Mode&os.ModeDevice != 0:
		what = "a device, not a file"
	case e.Mode.IsDir():
		what = "a directory, not a file"
	}
	return e.Name + " is " + what + "; only a regular file is read where another file names it or pilotage looks for it"
}

// ReadRegular is ReadFile of a file the user did not name on the command
// line: one a PDL or a case file names (a guide, a schema, an input), or
// pilotage.yaml found from the working directory. Anything but a regular
// file is refused before it is opened: opening a named pipe blocks until
// something writes to it, so a FIFO left where a guide is named hung
// lint for ever. A path named on the command line may be a pipe
// (<(…)), and ReadFile reads it.
func ReadRegular(path string, b Bound) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &NotRegularError{Name: path, Mode: st.Mode()}
	}
	return ReadFile(path, b)
}

// ReadAll reads r, named name (standard input), as ReadFile reads a file.
func ReadAll(r io.Reader, name string, b Bound) ([]byte, error) {
	return read(r, name, 0, b)
}

// read reads r up to b.Bytes+1 bytes. A regular file is read into one
// buffer of the size it says it has, as os.ReadFile does; other input
// goes into chunks of growing size, copied into one buffer at the end
// only if it fits the limit, so an endless input costs the limit once,
// not the sum of buffers doubled to hold it (690 to 820 MB of RSS for
// a 256 MiB limit when each growth was a new buffer: freed ones are not
// given back to the system before the next, larger one is taken).
func read(r io.Reader, name string, size int64, b Bound) ([]byte, error) {
	lim := io.LimitReader(r, b.Bytes+1)
	var chunks [][]byte
	var total int64
	next := min(size, b.Bytes) + 1
	if size == 0 {
		next = minChunk
	}
	for {
		buf := make([]byte, next)
		n, err := io.ReadFull(lim, buf)
		chunks = append(chunks, buf[:n])
		total += int64(n)
		if err == io.EOF || err == io.ErrUnexpectedEOF || total > b.Bytes {
			break
		}
		if err != nil {
			return nil, err
		}
		next = min(max(total, minChunk), maxChunk)
	}
	if total > b.Bytes {
		return nil, &TooLargeError{Name: name, Bound: b}
	}
	if len(chunks) == 1 {
		return chunks[0], nil
	}
	out := make([]byte, 0, total)
	for _, c := range chunks {
		out = append(out, c...)
	}
	return out, nil
}

// The chunks read takes of input of unknown size: as large as what was
// read before, so there are few of them, within these bounds.
const (
	minChunk = 32 << 10
	maxChunk = 16 << 20
)
