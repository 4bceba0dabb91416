// Package compact holds the tables both readings of the log keep their
// events in, each as small as the job allows: the table of event ids that
// finds duplicates (IDTable), the interning of the names that repeat
// across lines (Interner), the 16-byte forms of the common event ids
// (ParseID, FormatID), and the append-only lists in blocks that hold them
// (BlockList). It knows nothing of events: projection's decoder and
// replays say what goes in, and their differential tests hold what comes
// out to the canonical replay.
package compact
