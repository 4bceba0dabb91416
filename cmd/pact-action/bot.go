package main

import "context"

func runBot(ctx context.Context, e *runEnv) error {
	_ = ctx
	return usagef("bot mode is not available in this build")
}
