package action

import (
	"context"
	"time"
)

// NewSameCode is codeIdentity.same, one cache per call, for the property
// test of package action_test (samecode_test.go).
func NewSameCode(gh reader, pactDir string) func(ctx context.Context, a, b string) (bool, error) {
	return newCodeIdentity(gh, settings{PactDir: pactDir}).same
}

// Targets is what an event asks to judge, for targets_test.go.
var Targets = targets

// SetCancelGrace shortens what a cancelled job leaves its check run's
// requests (failGrace), for tests that cancel while GitHub holds one.
func SetCancelGrace(e *eventEnv, d time.Duration) { e.grace = d }

// The names the black-box tests of package action_test use: the dispatch
// (run), what it is handed and what it returns, and the errors it may
// fail with. Only cmd/pact-action's entries (RunWorkflow, Local, Doctor)
// are the package's own API; these are the tests' view of its insides.
type (
	BotOutcome        = botOutcome
	Env               = eventEnv
	HeadFailure       = headFailure
	NoTargetError     = noTargetError
	NotStartedError   = notStartedError
	Outcome           = outcome
	PactTooLargeError = pactTooLargeError
	RunBudgetError    = runBudgetError
	Settings          = settings
	UnjudgedError     = unjudgedError
	UpdateOutcome     = updateOutcome
)

// Run is the one dispatch of a workflow event (run).
var Run = run
