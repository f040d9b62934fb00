// Package fserr words a file-system error for a user as "NAME: reason",
// the way every pilotage verb names a file it could not read or write.
package fserr

import (
	"errors"
	"fmt"
	"io/fs"
)

// Plain drops the Go operation ("open", "read", "mkdir") that
// *fs.PathError puts between the path and the reason ("adir: read adir:
// is a directory"), which tells a user nothing and names the file twice.
// Other errors are returned as they are.
func Plain(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", pe.Path, pe.Err)
	}
	return err
}
