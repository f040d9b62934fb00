package runstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"

	berrors "go.etcd.io/bbolt/errors"
)

// Opening a data directory's runs.db fails for three reasons a user must
// tell apart, since each wants something else done: another process holds
// the file (stop it, or use another directory), the file is not a run
// store at all (move it away), or it is one that was damaged (move it
// away, losing its records, or restore a backup). openError words each.
// The check of checkFile comes first because bbolt does not survive every
// damaged file: it maps the file into memory and reads the pages its meta
// page names, and past the end of a file cut short that read is a SIGBUS
// that kills the process outright.

var (
	// errLocked: bbolt's open timed out waiting for the file's lock.
	errLocked = errors.New("locked by another process")
	// errNotRunStore: the file is something other than a run store.
	errNotRunStore = errors.New("not a run store")
	// errDamaged: the file is a bbolt file that cannot be read.
	errDamaged = errors.New("damaged")
)

// fileError is what checkFile found: kind is errNotRunStore or
// errDamaged, reason says what is wrong.
type fileError struct {
	kind   error
	reason string
}

func (e *fileError) Error() string { return e.reason }
func (e *fileError) Unwrap() error { return e.kind }

// openError explains why the run store file path could not be opened,
// with what to do about it; errors.Is tells the three kinds apart.
func openError(path string, err error) error {
	switch {
	case errors.Is(err, berrors.ErrTimeout):
		return fmt.Errorf("run store %s is %w, most likely another pilotage serve with the same --data directory: stop it, or give this server a data directory of its own", path, errLocked)
	case errors.Is(err, errNotRunStore), errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrVersionMismatch), errors.Is(err, berrors.ErrIncompatibleValue):
		return fmt.Errorf("run store %s is %w (%v): move the file away and a new, empty one is created, or use another data directory (--data)", path, errNotRunStore, err)
	case errors.Is(err, errDamaged), errors.Is(err, berrors.ErrChecksum):
		return fmt.Errorf("run store %s is %w (%v): move the file away to start with an empty run store (the durable runs and idempotency records in it are lost), or restore it from a backup", path, errDamaged, err)
	}
	return fmt.Errorf("run store %s: %w", path, err)
}

// bbolt's file format (go.etcd.io/bbolt internal/common): every page
// starts with a 16-byte header; the first two pages are meta pages, whose
// body is magic, version, page size, flags (4 bytes each), the root
// bucket (16), the freelist page, the high-water page count and the
// transaction id (8 each), then an FNV-64a checksum of all that. Integers
// are in the machine's byte order.
const (
	boltMagic        = 0xED0CDAED
	boltVersion      = 2
	boltPageHeader   = 16
	boltMetaSize     = 64
	boltMetaSummed   = 56
	boltNoFreelist   = ^uint64(0)
	boltMaxPageShift = 14 // bbolt looks for the second meta page at 1 KiB << 0…14
)

type boltMeta struct {
	pageSize                    uint32
	root, freelist, pages, txid uint64
}

// readMeta reads the meta page at off; ok is false when it is not one.
func readMeta(f io.ReaderAt, off int64) (m boltMeta, magic, ok bool) {
	var b [boltPageHeader + boltMetaSize]byte
	if _, err := f.ReadAt(b[:], off); err != nil {
		return m, false, false
	}
	meta := b[boltPageHeader:]
	u32 := func(i int) uint32 { return binary.NativeEndian.Uint32(meta[i:]) }
	u64 := func(i int) uint64 { return binary.NativeEndian.Uint64(meta[i:]) }
	if u32(0) != boltMagic {
		return m, false, false
	}
	h := fnv.New64a()
	h.Write(meta[:boltMetaSummed])
	if u32(4) != boltVersion || u64(boltMetaSummed) != h.Sum64() {
		return m, true, false
	}
	return boltMeta{pageSize: u32(8), root: u64(16), freelist: u64(32), pages: u64(40), txid: u64(48)}, true, true
}

// checkFile returns a *fileError for a file bbolt must not map (see
// above) or would refuse anyway; nil for a missing or empty file, which
// bbolt creates, for one it can open, and when the file cannot be read,
// which bbolt's own open then reports.
func checkFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() || info.Size() == 0 {
		return nil
	}
	// bbolt uses the valid meta page with the higher transaction id.
	var best boltMeta
	found, magic := false, false
	try := func(off int64) {
		m, mg, ok := readMeta(f, off)
		magic = magic || mg
		if ok && (!found || m.txid > best.txid) {
			best, found = m, true
		}
	}
	if try(0); found {
		try(int64(best.pageSize))
	} else {
		for i := range boltMaxPageShift + 1 {
			try(1024 << i)
		}
	}
	switch {
	case !found && !magic:
		return &fileError{errNotRunStore, "not a bbolt database"}
	case !found:
		return &fileError{errDamaged, "neither meta page is valid"}
	case best.pageSize < 1024 || best.root >= best.pages || (best.freelist != boltNoFreelist && best.freelist >= best.pages):
		return &fileError{errDamaged, "its meta page names pages it does not have"}
	case uint64(info.Size()) < best.pages*uint64(best.pageSize):
		return &fileError{errDamaged, fmt.Sprintf("it is %d bytes, cut short of the %d its meta page counts", info.Size(), best.pages*uint64(best.pageSize))}
	}
	return nil
}
