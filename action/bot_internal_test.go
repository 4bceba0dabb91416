package action

import (
	"testing"
	"time"

	"github.com/pact-action/pact-action/bot"
	"github.com/pact-action/pact-action/projection"
)

// TestReorderable: the bot replays a log with every event held, to judge
// an event dated before later ones, up to maxReorderBytes and not a byte
// more (docs/bot.md).
func TestReorderable(t *testing.T) {
	t.Parallel()
	for size, want := range map[int64]bool{0: true, maxReorderBytes: true, maxReorderBytes + 1: false, 100 << 20: false} {
		if got := reorderable(size); got != want {
			t.Errorf("reorderable(%d) = %v, want %v", size, got, want)
		}
	}
}

// TestSortsBefore: intents written in order after a log's events sort
// before one of them when one is dated before the latest event, or before
// an intent written ahead of it; a date equal to the one before is in
// order, as a comment's commands all carry the comment's.
func TestSortsBefore(t *testing.T) {
	t.Parallel()
	at := func(m int) bot.Intent {
		return bot.Intent{Draft: projection.Draft{TS: time.Date(2026, 6, 9, 10, m, 0, 0, time.UTC)}}
	}
	latest := at(30).Draft.TS
	for _, tc := range []struct {
		name    string
		intents []bot.Intent
		want    bool
	}{
		{"none", nil, false},
		{"after", []bot.Intent{at(31)}, false},
		{"at the latest", []bot.Intent{at(30), at(30)}, false},
		{"before", []bot.Intent{at(29)}, true},
		{"after, then before the first", []bot.Intent{at(40), at(35)}, true},
	} {
		if got := sortsBefore(tc.intents, latest); got != tc.want {
			t.Errorf("%s: sortsBefore = %v, want %v", tc.name, got, tc.want)
		}
	}
}
