package report

import (
	"bufio"
	"cmp"
	"io"
	"slices"
	"strings"
)

// findingWriter writes a report a finding at a time, then its end: text,
// json and github need nothing of a finding but the finding.
type findingWriter interface {
	finding(Finding) error
	end(*Report) error
}

// newFindingWriter is f's findingWriter on w, nil for a format that is
// written whole (sarif, junit) or unknown.
func newFindingWriter(w io.Writer, f Format, r *Report, opt Options) findingWriter {
	switch f {
	case Text:
		return &textWriter{bw: bufio.NewWriter(w), r: r, opt: opt, lines: lineReader{}}
	case JSON:
		return newJSONWriter(w)
	case GitHub:
		return githubWriter{bufio.NewWriter(w)}
	}
	return nil
}

// Stream writes a report as its findings are found, for a command whose
// findings would otherwise be held to the end (pilotage test's, a case
// at a time): text, json and github are written as Flush releases the
// findings, so the stream holds only those it cannot place yet. Sarif
// opens with the table of every rule found and junit with the counts of
// every file, so a Stream of those holds the findings (not what they
// were found in) and writes them whole at Close. The output is byte for
// byte Write's of the sorted report. The Report gives Tool, Files,
// Sources and KeyLabel; its Summary counts what is added, and it has no
// Cap.
type Stream struct {
	r      *Report
	format Format
	opt    Options
	w      io.Writer
	fw     findingWriter // nil: written whole at Close
	queue  []Finding
}

// NewStream starts writing r to w in format f.
func NewStream(w io.Writer, f Format, r *Report, opt Options) *Stream {
	return &Stream{r: r, format: f, opt: opt, w: w, fw: newFindingWriter(w, f, r, opt)}
}

// Add counts findings and holds them until a Flush places them.
func (s *Stream) Add(fs ...Finding) {
	for _, f := range fs {
		s.r.count(f, 1)
	}
	s.queue = append(s.queue, fs...)
}

// Flush writes, in Sort's order, the findings held that sort before line
// of file: the caller's promise that no finding added later does, which
// a command knows from the order it reads its files in. Line 0 releases
// only the files before file.
func (s *Stream) Flush(file string, line int) error {
	if s.fw == nil {
		return nil
	}
	slices.SortStableFunc(s.queue, compare)
	n, _ := slices.BinarySearchFunc(s.queue, Finding{File: file, Line: line}, func(a, b Finding) int {
		return cmp.Or(strings.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line))
	})
	for _, f := range s.queue[:n] {
		if err := s.fw.finding(f); err != nil {
			return err
		}
	}
	s.queue = append(s.queue[:0], s.queue[n:]...)
	return nil
}

// Close writes the findings still held and the end of the report.
func (s *Stream) Close() error {
	slices.SortStableFunc(s.queue, compare)
	if s.fw == nil {
		s.r.Findings = s.queue
		return Write(s.w, s.format, s.r, s.opt)
	}
	for _, f := range s.queue {
		if err := s.fw.finding(f); err != nil {
			return err
		}
	}
	s.queue = nil
	return s.fw.end(s.r)
}
