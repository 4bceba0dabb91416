// Command pact-action is the GitHub Action (and its local preview): check
// mode judges a pull request's pact and posts a check run; bot mode turns
// reviews and /pact commands into pact events.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}
