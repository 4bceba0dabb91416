// Package report owns every rendering of a judged pact: validate's text,
// JSON and SARIF (text.go, json.go, sarif.go), the action's JSON report
// (json.go), the check run's verdict and its Markdown summary, also the job
// summary (checkrun.go), its annotations and the fallback workflow commands
// (annotations.go), and what check --local prints on a terminal
// (terminal.go). It is pure: findings and state in, text out; checks only
// judges. Every piece of user text from the log is escaped here
// (markdown.go, terminal.go), so a task id or a reason cannot inject
// Markdown, HTML or @-mentions into GitHub.
package report
