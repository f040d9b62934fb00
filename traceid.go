package pilotage

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// TraceID is a parsed trace step identifier (§5.8.2): zero or more
// expansion prefixes (each a complete iteration-qualified identifier of the
// calling entry), then the base program step identifier and its loop
// iteration qualifiers, outermost first.
type TraceID struct {
	Prefixes []TraceSegment
	TraceSegment
}

// TraceSegment is one `/`-separated part: `base#i#j`.
type TraceSegment struct {
	Base       string
	Iterations []int
}

// String renders the segment in wire form.
func (s TraceSegment) String() string {
	var b strings.Builder
	b.WriteString(s.Base)
	for _, n := range s.Iterations {
		b.WriteByte('#')
		b.WriteString(strconv.Itoa(n))
	}
	return b.String()
}

// String renders the identifier in wire form.
func (id TraceID) String() string {
	var b strings.Builder
	for _, p := range id.Prefixes {
		b.WriteString(p.String())
		b.WriteByte('/')
	}
	b.WriteString(id.TraceSegment.String())
	return b.String()
}

// Prefixed reports whether the entry belongs to an expanded sub-program.
func (id TraceID) Prefixed() bool { return len(id.Prefixes) > 0 }

// BaseID recovers the base program step identifier of a trace entry by the
// §5.8.2 procedure: the segment after the final `/`, without `#` suffixes.
// It needs no validation and never fails.
func BaseID(s string) string {
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		s = s[i+1:]
	}
	if i := strings.IndexByte(s, '#'); i >= 0 {
		s = s[:i]
	}
	return s
}

// ParseTraceID parses a trace step identifier strictly: every segment has a
// non-empty base and every qualifier is a positive decimal integer without
// leading zeros.
func ParseTraceID(s string) (TraceID, error) {
	if s == "" {
		return TraceID{}, fmt.Errorf("trace step id is empty")
	}
	parts := strings.Split(s, "/")
	segs := make([]TraceSegment, len(parts))
	for i, p := range parts {
		seg, err := parseSegment(p)
		if err != nil {
			return TraceID{}, fmt.Errorf("trace step id %q: %w", s, err)
		}
		segs[i] = seg
	}
	return TraceID{Prefixes: segs[:len(segs)-1], TraceSegment: segs[len(segs)-1]}, nil
}

func parseSegment(p string) (TraceSegment, error) {
	fields := strings.Split(p, "#")
	if fields[0] == "" {
		return TraceSegment{}, fmt.Errorf("segment %q has an empty base step id", p)
	}
	seg := TraceSegment{Base: fields[0]}
	for _, f := range fields[1:] {
		n, err := strconv.Atoi(f)
		if errors.Is(err, strconv.ErrRange) && f[0] != '-' && f[0] != '+' && f[0] != '0' {
			return TraceSegment{}, fmt.Errorf("iteration qualifier %q in %q is too large for an iteration count", "#"+f, p)
		}
		if err != nil || n < 1 || f[0] == '0' || f[0] == '+' {
			return TraceSegment{}, fmt.Errorf("iteration qualifier %q in %q is not a positive integer without leading zeros", "#"+f, p)
		}
		seg.Iterations = append(seg.Iterations, n)
	}
	return seg, nil
}

// ValidStepID reports whether a program step identifier avoids the
// characters reserved for trace identity (§3.4).
func ValidStepID(id string) bool { return id != "" && !strings.ContainsAny(id, "#/") }
