// Package tmpdir keeps tests' temporary directories in memory, where the
// system has a tmpfs for them.
package tmpdir

import "os"

// InMemory points TMPDIR, and so every t.TempDir, at /dev/shm when the
// system has a tmpfs there and TMPDIR does not say otherwise; call it
// from TestMain before m.Run. On a disk file system each file a test
// makes and removes costs system CPU (the journal), and each fdatasync
// waits on the disk: a package whose tests are not about what reaches
// the disk need pay neither.
func InMemory() {
	if os.Getenv("TMPDIR") != "" {
		return
	}
	if dir, err := os.MkdirTemp("/dev/shm", "tmpdir"); err == nil {
		os.Remove(dir)
		os.Setenv("TMPDIR", "/dev/shm")
	}
}
