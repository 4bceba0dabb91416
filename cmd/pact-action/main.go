// Command pact-action is the GitHub Action (and its local preview): check
// mode judges a pull request's pact and posts a check run; bot mode turns
// reviews and /pact commands into pact events.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
)

func main() {
	tuneMemory(os.Getenv)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}

// memoryLimit is the soft memory limit of a run. A judgement holds the
// pact files it read (a log of up to 100 MB, the size GitHub serves) and
// little more, but it reads each in one allocation the collector cannot
// come before: with the collector's default pacing, what was let go before
// stands under it, and the heap grows to twice what is live. Under the
// limit the collector runs earlier, so a run stays within 256 MiB
// (docs/security.md "Exhausting the runner with .pact/"), also one that
// reads a merge base's log of 100 MB beside the head's; a run that holds
// more than the limit (max-pact-bytes raised for a larger pact) is slowed
// by the collector, never stopped.
const memoryLimit = 160 << 20

// tuneMemory sets memoryLimit unless GOMEMLIMIT sets another.
func tuneMemory(getenv func(string) string) {
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
}
