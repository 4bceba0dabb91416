// Command pactify is the Pact v1 command line: every protocol verb of docs/semantics.md, pact v1
// §7.1 over ./.pact, with the same engine the GitHub Action uses.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"

	"github.com/pact-action/pact-action/pactdir"
	"github.com/pact-action/pact-action/pactfile"
)

func main() {
	tuneMemory(os.Getenv, logSize(defaultLog()))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}

// tuneMemory trades collector work for a bounded heap on huge logs: a soft
// memory limit with rarer collections below it (GOGC 400). The limit is
// 200 MiB, or half the log's size when that is more: what a replay keeps
// live grows with the log (at most about a third of its size, most of it
// the replayed state), and a limit near the live heap makes the collector
// run back to back (docs/performance.md, "Method" and the Record). GOGC
// and GOMEMLIMIT still win when set.
func tuneMemory(getenv func(string) string, logBytes int64) {
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit(logBytes))
		if getenv("GOGC") == "" {
			debug.SetGCPercent(400)
		}
	}
}

func memoryLimit(logBytes int64) int64 {
	return max(200<<20, logBytes/2)
}

// defaultLog is the log of the pact the working directory belongs to, as
// the verbs find it without --pact-dir; "" when that cannot be said.
func defaultLog() string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	d, _, err := pactdir.Find(wd, pactfile.DefaultDir)
	if err != nil {
		return ""
	}
	return d.Path(pactfile.LogFile)
}

// logSize is the size of the log, 0 when there is none.
func logSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}
