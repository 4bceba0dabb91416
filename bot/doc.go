// Package bot decides what a GitHub review or a /pact comment asks of the
// pact: which accept or changes_requested events to append, with which
// identity, and what to reply. It is pure — the payload facts, the seat map
// and the branch's replayed State in, intended events and replies out — so
// every Rule 1 decision with real GitHub identities is testable without
// GitHub. Writing the events is the caller's job, and the engine judges them
// again against the branch's log at write time.
package bot
