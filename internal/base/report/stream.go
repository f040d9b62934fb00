package report

import (
	"bufio"
	"cmp"
	"hash/maphash"
	"io"
	"slices"
	"strings"
)

// findingWriter writes a report a finding at a time, then its end. Text,
// json and github write each finding as it comes; sarif and junit hold
// them in a spool until their end (sarifWriter, junitWriter say why).
type findingWriter interface {
	finding(Finding) error
	end(*Report) error
}

// newFindingWriter is f's findingWriter on w, nil for an unknown format;
// held is where sarif and junit hold the findings.
func newFindingWriter(w io.Writer, f Format, r *Report, opt Options, held *spool) findingWriter {
	switch f {
	case Text:
		return newTextWriter(w, r, opt)
	case JSON:
		return newJSONWriter(w)
	case GitHub:
		return githubWriter{bufio.NewWriter(w)}
	case SARIF:
		return newSARIFWriter(w, opt.IncludeSuppressed, held)
	case JUnit:
		return newJUnitWriter(w, r, opt.Strict, held)
	}
	return nil
}

// Stream writes a report as its findings are found, for a command whose
// findings would otherwise be held to the end (lint and replay, a file
// at a time; pilotage test, a case at a time): each format is written as
// Flush releases the findings, so the stream holds only those it cannot
// place yet, plus, for sarif and junit, a spool of at most spoolMemory
// findings in memory and the rest in a temporary file (their reports
// open with what only the last finding settles). The output is byte for
// byte Write's of the sorted report. The Report gives Tool, Files, Rules,
// Sources and KeyLabel; its Summary counts what is added, and it has no
// Cap.
type Stream struct {
	r      *Report
	format Format
	opt    Options
	w      io.Writer
	// fw is made when the first finding is written, or at Close, so a
	// command that fails before writing any (an unreadable input) has
	// written nothing.
	fw    findingWriter
	held  *spool
	queue []Finding
	// DropRepeats drops each finding in a file other than its report's
	// inputs that repeats one added before, as Report.Dedupe drops
	// repeats (lint: a finding in a guide two PDL files read). Those
	// findings are known by a hash of each (repeats): the files a report
	// names besides its inputs are few, and a run of many inputs keeps
	// no key of theirs.
	DropRepeats bool
	repeats     map[uint64]bool
	seed        maphash.Seed
	// lent are the files whose sources AddReport added, released once
	// their findings are written.
	lent map[string]bool
}

// NewStream starts writing r to w in format f.
func NewStream(w io.Writer, f Format, r *Report, opt Options) *Stream {
	return &Stream{r: r, format: f, opt: opt, w: w, held: newSpool(spoolMemory), lent: map[string]bool{},
		repeats: map[uint64]bool{}, seed: maphash.MakeSeed()}
}

// Add counts findings and holds them until a Flush places them.
func (s *Stream) Add(fs ...Finding) {
	for _, f := range fs {
		s.r.count(f, 1)
	}
	s.queue = append(s.queue, fs...)
}

// AddReport adds the findings of b, the report of one input (or a few),
// and lends its sources to the text format's snippets until Flush has
// written their files' findings.
func (s *Stream) AddReport(b *Report) {
	fs := b.Findings
	if s.DropRepeats {
		fs = slices.DeleteFunc(slices.Clone(fs), func(f Finding) bool {
			if slices.Contains(b.Files, f.File) {
				return false
			}
			k := maphash.Comparable(s.seed, repeatKey(f))
			was := s.repeats[k]
			s.repeats[k] = true
			return was
		})
	}
	s.Add(fs...)
	if s.r.Sources == nil {
		s.r.Sources = map[string][]byte{}
	}
	for name, src := range b.Sources {
		if _, ok := s.r.Sources[name]; !ok {
			s.r.Sources[name] = src
			s.lent[name] = true
		}
	}
}

// Flush writes, in Sort's order, the findings held that sort before line
// of file: the caller's promise that no finding added later does, which
// a command knows from the order it reads its files in. Line 0 releases
// only the files before file.
func (s *Stream) Flush(file string, line int) error {
	slices.SortStableFunc(s.queue, compare)
	n, _ := slices.BinarySearchFunc(s.queue, Finding{File: file, Line: line}, func(a, b Finding) int {
		return cmp.Or(strings.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line))
	})
	if err := s.write(s.queue[:n]); err != nil {
		return err
	}
	s.queue = append(s.queue[:0], s.queue[n:]...)
	for name := range s.lent {
		if name < file {
			s.release(name)
		}
	}
	return nil
}

// write writes fs, sorted, after those written before.
func (s *Stream) write(fs []Finding) error {
	if len(fs) == 0 {
		return nil
	}
	if s.fw == nil {
		s.fw = newFindingWriter(s.w, s.format, s.r, s.opt, s.held)
	}
	for _, f := range fs {
		if err := s.fw.finding(f); err != nil {
			return err
		}
	}
	return nil
}

// release forgets the source of a file whose findings are written.
func (s *Stream) release(name string) {
	delete(s.r.Sources, name)
	delete(s.lent, name)
	if t, ok := s.fw.(*textWriter); ok {
		delete(t.lines, name)
	}
}

// Close writes the findings still held and the end of the report.
func (s *Stream) Close() error {
	slices.SortStableFunc(s.queue, compare)
	if err := s.write(s.queue); err != nil {
		s.held.close()
		return err
	}
	s.queue = nil
	if s.fw == nil {
		s.fw = newFindingWriter(s.w, s.format, s.r, s.opt, s.held)
	}
	return s.fw.end(s.r)
}
