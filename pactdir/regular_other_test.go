//go:build !unix

package pactdir

import "testing"

// plantSpecial: a Windows checkout holds no FIFO or device file.
func plantSpecial(*testing.T, string) []readCase { return nil }
