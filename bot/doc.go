// Package bot decides what a GitHub review or a /pact comment asks of the
// pact. Decide (decide.go) is the whole decision, one pure call: the
// webhook and the facts read from GitHub (the pull request, the seat map,
// the reviews or the comment, the commenter's permission, the replayed log
// at the reviewed commit or at the head when the comment was made) in;
// which events to append with which identity, or why nothing is, and what
// to reply, out. Where it needs a fact it does not hold yet it says which,
// and the caller (action) asks GitHub and calls it again; so every Rule 1
// decision with real GitHub identities is testable without GitHub.
// plan.go builds the events, commands.go parses /pact comments,
// update.go decides how an open pull request whose pact conflicts with its
// base is brought up to date (DecideUpdate, the same way: facts in, a
// merge to write or a reply out), and every reply text is in replies.go. Writing the events is the caller's job, and
// the engine judges them again against the branch's log at write time.
package bot
