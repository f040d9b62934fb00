//go:build tracecheck

package engine

func init() { checkAlways = true }
