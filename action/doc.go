// Package action runs pact-action's check mode against one repository: it
// gathers the head and merge-base logs of a pull request (or merge group),
// judges them with the engine, asks GitHub for the reviews the verdict
// waits for, and posts the verdict as a check run, falling back to
// workflow annotations when the token cannot write checks. It talks
// to GitHub only through the narrow GitHub interface below, which ghapi
// implements and tests fake at the HTTP layer.
package action
