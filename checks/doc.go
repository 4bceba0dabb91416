// Package checks holds the rules that judge a replayed pact: it turns replay
// rejections into findings with the stable codes, severities and fix hints
// of docs/semantics.md §6, and adds the rules not tied to replaying one
// event: STATE.yml drift, task files, the PROJECT.md header, the
// repository's seat map, and the pull-request rules (append-only history,
// Rule 2 for the head branch, provenance), and whom to ask for the reviews
// a verdict waits for (PlanReviewRequests). Everything here is a pure
// function over data; no rule ever talks to GitHub or the network. It judges and renders nothing: report
// writes findings as text, JSON, SARIF and Markdown, and pactfile says how
// each file of .pact/ reads.
package checks
