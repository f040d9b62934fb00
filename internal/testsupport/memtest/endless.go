package memtest

// Endless is an input that never ends, as /dev/zero or a FIFO fed
// forever: a reader bounded before it reads stops at its bound, one that
// reads to the end never returns.
type Endless struct{}

// Read fills p with NUL bytes.
func (Endless) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
