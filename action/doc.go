// Package action runs pact-action against one repository. Run (run.go) is
// the one dispatch of a workflow event, which cmd/pact-action and the
// tests share: bot mode on a review or /pact comment (bot.go), or check
// mode on every head the event asks to judge (targets.go). Check mode
// gathers the head and merge-base logs of a pull request (or merge
// group), judges them with the engine, asks GitHub for the reviews the
// verdict waits for, and posts the verdict as a check run, falling back to
// workflow annotations when the token cannot write checks. It talks to
// GitHub only through the narrow GitHub interface (github.go), which ghapi
// implements and tests fake at the HTTP layer.
package action
