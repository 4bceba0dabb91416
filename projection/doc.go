// Package projection owns the Pact v1 replay model: it reads .pact/log.jsonl
// into line-numbered events, replays them in the order docs/semantics.md §1 fixes
// (stable sort by ts, ties by line), judges every event against the state built
// so far, and renders the resulting State as STATE.yml. It also owns the
// other direction: every event our tools write is built by the constructor
// of its type (events.go: NewInit … NewMerge) and encoded by Encode
// (emit.go), beside the decoder that reads it back.
//
// Every reader of a log goes through the door of read.go: Read, which
// keeps no event and gives a Log, or ReadEvents, which keeps them all and
// gives an EventLog; the verdict is the same either way. The fast path is
// fenced under internal/, behind that door, each part in a package of its
// own and held to the canonical one by differential tests and fuzz targets
// here: the byte-level JSON scanner under the decoder (internal/jsonscan),
// the parallel replay that keeps no events (internal/lean, handed the
// decoder and the judge of the canonical replay.go), the compact tables
// both readings keep events in (internal/compact), the line reader of our
// own STATE.yml (internal/ownstate, beside the YAML reading of
// summary_yaml.go) and the render of its tasks in ranges
// (internal/ranges). The words both readings are told in (Event, Scan,
// Rejection, the codes) are defined with them (internal/event) and named
// here.
//
// A writer may start from a snapshot of a replay instead of the log
// (snapshot.go: what it holds, its byte format fenced in
// internal/snapshot; pactdir keeps it and says when it is trusted), held
// to the replay by TestSnapshotEqualsReplay.
//
// It is pure: no clock, no network, no GitHub. Bytes come in through readers
// the caller hands over; time comes from the events themselves.
package projection
