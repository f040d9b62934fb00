package report

import (
	"bytes"
	"encoding/gob"
	"io"
	"os"
)

// spoolMemory is how many findings a Stream's spool holds in memory
// before it moves them to a temporary file: a few hundred KB, so a run
// whose sarif or junit report is small never writes a file, and one of
// many files holds no more than this however many findings it has.
const spoolMemory = 1024

// spool holds the findings a writer can only write at its end (sarif's
// results after the rule table, junit's cases after the suite's counts),
// in parts a writer names to read them back: in memory up to a limit,
// then in a temporary file, each part gob-encoded on its own so it can be
// read alone. Gob keeps every string's bytes as they are, invalid UTF-8
// included, which text-like formats show escaped (visible.go).
type spool struct {
	limit int // findings held in memory; 0 for no limit
	parts []spooled
	inMem int // findings in parts not yet in the file
	file  *os.File
	size  int64 // bytes written to file
}

// spoolPart names a part of a spool; -1 names none.
type spoolPart int

// spooled is one part: its findings while in memory, else where they
// are in the file.
type spooled struct {
	fs        []Finding
	inFile    bool
	off, size int64
}

// newSpool is a spool that holds limit findings in memory, 0 for all.
func newSpool(limit int) *spool { return &spool{limit: limit} }

// add holds f in the last part, or in a new one when that part is in the
// file.
func (s *spool) add(f Finding) error {
	_, err := s.addTo(f, spoolPart(len(s.parts)-1))
	return err
}

// addTo holds f in part p when p is the last part and in memory, else in
// a new part, and returns the part f is in.
func (s *spool) addTo(f Finding, p spoolPart) (spoolPart, error) {
	if p < 0 || int(p) != len(s.parts)-1 || s.parts[p].inFile {
		s.parts = append(s.parts, spooled{})
		p = spoolPart(len(s.parts) - 1)
	}
	s.parts[p].fs = append(s.parts[p].fs, f)
	s.inMem++
	if s.limit > 0 && s.inMem > s.limit {
		return p, s.spill()
	}
	return p, nil
}

// spill moves every part in memory to the file. Without a place for the
// file (TMPDIR missing, read-only or full when it is made) the spool
// holds every finding in memory from then on, as whole reports do: a run
// costs memory, not its report. The file is unlinked once open, where
// the system allows it, so a run that is killed leaves none behind.
func (s *spool) spill() error {
	if s.file == nil {
		f, err := os.CreateTemp("", "pilotage-report-*")
		if err != nil {
			s.limit = 0
			return nil
		}
		os.Remove(f.Name()) // fails where an open file cannot be removed: close removes it
		s.file = f
	}
	var b bytes.Buffer
	for i := range s.parts {
		p := &s.parts[i]
		if p.inFile {
			continue
		}
		b.Reset()
		if err := gob.NewEncoder(&b).Encode(p.fs); err != nil {
			return err
		}
		if _, err := s.file.Write(b.Bytes()); err != nil {
			return err
		}
		*p = spooled{inFile: true, off: s.size, size: int64(b.Len())}
		s.size += int64(b.Len())
	}
	s.inMem = 0
	return nil
}

// part calls fn with each finding of part p, in the order they were held.
func (s *spool) part(p spoolPart, fn func(Finding) error) error {
	sp := s.parts[p]
	fs := sp.fs
	if sp.inFile {
		if err := gob.NewDecoder(io.NewSectionReader(s.file, sp.off, sp.size)).Decode(&fs); err != nil {
			return err
		}
	}
	for _, f := range fs {
		if err := fn(f); err != nil {
			return err
		}
	}
	return nil
}

// each calls fn with every finding held, in order.
func (s *spool) each(fn func(Finding) error) error {
	for p := range s.parts {
		if err := s.part(spoolPart(p), fn); err != nil {
			return err
		}
	}
	return nil
}

// close closes the file, if there is one, and removes it where spill
// could not.
func (s *spool) close() {
	if s.file != nil {
		s.file.Close()
		os.Remove(s.file.Name())
		s.file = nil
	}
}
