package language

import "time"

// DefaultLimits are the bounds of §10.1 a Language gets for every limit
// its definition leaves at zero: generous for real programs, small enough
// that a hostile program cannot hold a server.
var DefaultLimits = Limits{
	Steps:        10000,
	Time:         10 * time.Second,
	Depth:        32,
	Iterations:   1000,
	Expansion:    8,
	MemoryBytes:  16 << 20,
	ProgramBytes: 1 << 20,
}

// WithDefaults returns l with every zero (unset) limit taken from
// DefaultLimits, so no bound is ever missing.
func (l Limits) WithDefaults() Limits {
	d := DefaultLimits
	pick := func(v, def int) int {
		if v > 0 {
			return v
		}
		return def
	}
	d.Steps = pick(l.Steps, d.Steps)
	d.Depth = pick(l.Depth, d.Depth)
	d.Iterations = pick(l.Iterations, d.Iterations)
	d.Expansion = pick(l.Expansion, d.Expansion)
	d.ProgramBytes = pick(l.ProgramBytes, d.ProgramBytes)
	if l.Time > 0 {
		d.Time = l.Time
	}
	if l.MemoryBytes > 0 {
		d.MemoryBytes = l.MemoryBytes
	}
	return d
}
