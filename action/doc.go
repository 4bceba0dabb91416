// Package action runs pact-action against one repository, and is all the
// entry (cmd/pact-action) calls, one function per verb: RunWorkflow
// (workflow.go) is the GitHub Action — inputs and the runner's environment
// in, the GitHub client built, the job's summary, outputs, JSON report and
// annotations out (jobreport.go); Local (local.go) the preview on a local
// checkout; Doctor (doctor.go) the repository's settings judged. Each
// returns the error its exit code is read from (exit.go: VerdictError).
//
// run (run.go) is the one dispatch of a workflow event, which RunWorkflow
// and the tests share: bot mode on a review or /pact comment (bot.go), or
// check mode on every head the event asks to judge (targets.go). Check mode
// gathers the head and merge-base logs of a pull request (or merge
// group), judges them with the engine, asks GitHub for the reviews the
// verdict waits for, and posts the verdict as a check run, falling back to
// workflow annotations when the token cannot write checks. It talks to
// GitHub only through the narrow GitHub interface (github.go), which ghapi
// implements and tests fake at the HTTP layer.
package action
