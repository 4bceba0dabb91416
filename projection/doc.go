// Package projection owns the Pact v1 replay model: it parses .pact/log.jsonl
// into line-numbered events, replays them in the order docs/semantics.md §1 fixes
// (stable sort by ts, ties by line), judges every event against the state built
// so far, and renders the resulting State as STATE.yml. It also owns the
// other direction: every event our tools write is built by the constructor
// of its type (events.go: NewInit … NewMerge) and encoded by Encode
// (emit.go), beside the decoder that reads it back.
//
// It is pure: no clock, no network, no GitHub. Bytes come in through readers
// the caller hands over; time comes from the events themselves.
package projection
