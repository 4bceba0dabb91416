package action

import (
	"context"
	"time"
)

// NewSameCode is codeIdentity.same, one cache per call, for the property
// test of package action_test (samecode_test.go).
func NewSameCode(gh Reader, pactDir string) func(ctx context.Context, a, b string) (bool, error) {
	return newCodeIdentity(gh, Settings{PactDir: pactDir}).same
}

// Targets is what an event asks to judge, for targets_test.go.
var Targets = targets

// SetCancelGrace shortens what a cancelled job leaves its check run's
// requests (failGrace), for tests that cancel while GitHub holds one.
func SetCancelGrace(e *Env, d time.Duration) { e.grace = d }
