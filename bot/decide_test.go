package bot_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pact-action/pact-action/bot"
	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/config"
	"github.com/pact-action/pact-action/ghevent"
	"github.com/pact-action/pact-action/ghfacts"
	"github.com/pact-action/pact-action/projection"
)

// Decide's whole decision as one table: a webhook and what GitHub would
// answer (a world) → the facts Decide asks for, in order, and what it
// decides — every reason an event is ignored, every refusal it makes
// before the plan, and every recheck. (The refusals of the plan itself,
// Rule 1 with real identities, are TestRule1Decisions.)

// world is what GitHub would answer when asked: Facts holds every answer
// but the log, which logs holds per commit.
type world struct {
	bot.Facts
	logs map[string]*projection.State
}

// ask runs Decide as action does, answering each fact it asks for from w,
// and returns the facts asked, in order, and the decision.
func ask(t *testing.T, w world) ([]bot.Need, bot.Decision) {
	t.Helper()
	f := bot.Facts{EventName: w.EventName, Event: w.Event, BotLogins: w.BotLogins, LogPath: w.LogPath}
	var needs []bot.Need
	for {
		d := bot.Decide(f)
		if d.Need == bot.NeedNothing {
			return needs, d
		}
		if slices.Contains(needs, d.Need) && d.Need != bot.NeedLog || len(needs) > 10 {
			t.Fatalf("Decide asks for %s again (asked %v)", d.Need, needs)
		}
		needs = append(needs, d.Need)
		switch d.Need {
		case bot.NeedPullRequest:
			f.PullRequest = w.PullRequest
		case bot.NeedConfig:
			f.Config = w.Config
		case bot.NeedReviews:
			f.Reviews, f.Review = w.Reviews, w.Review
		case bot.NeedComment:
			f.Comment, f.CommentGone = w.Comment, w.CommentGone
		case bot.NeedPermission:
			f.CanWrite = w.CanWrite
		case bot.NeedHeadAtComment:
			f.HeadAtComment = w.HeadAtComment
		case bot.NeedLog:
			f.Log = &bot.LogAt{Commit: d.At, State: w.logs[d.At]}
		}
	}
}

const (
	prHead      = "1111111111111111111111111111111111111111" // the pull request's head now
	headAtEarly = "2222222222222222222222222222222222222222" // the head when the comment was made
)

var decideTime = time.Date(2026, 6, 9, 12, 0, 0, 0, time.UTC)

// reviewWorld: revuser (seat rev) approved the head of feat/x, where T1
// awaits rev's review.
func reviewWorld(t *testing.T) world {
	cfg, err := config.Parse([]byte(rule1SeatMap))
	if err != nil {
		t.Fatal(err)
	}
	r := ghfacts.Review{ID: 7, Found: true, AuthorLogin: "revuser", State: ghfacts.ReviewApproved, URL: "https://github.example/o/r/pull/1#pullrequestreview-7", CommitID: prHead, SubmittedAt: decideTime}
	return world{Facts: bot.Facts{
		EventName: "pull_request_review",
		Event: bot.Payload(map[string]any{"action": "submitted", "repository": map[string]any{"full_name": "o/r"}, "sender": map[string]any{"login": "revuser"},
			"pull_request": map[string]any{"number": 1}, "review": map[string]any{"id": 7, "user": map[string]any{"login": "revuser"}}}),
		BotLogins:   []string{checks.DefaultBotLogin},
		LogPath:     ".pact/log.jsonl",
		PullRequest: &ghfacts.PullRequest{Number: 1, HeadRef: "feat/x", HeadSHA: prHead, BaseRef: "main"},
		Config:      &config.File{Present: true, Config: cfg},
		Reviews:     map[int64]ghfacts.Review{7: r},
		Review:      &r,
	}, logs: map[string]*projection.State{prHead: rule1State(t, projection.StatusAwaitingReview)}}
}

// commentWorld: revuser (seat rev, write permission) commented body on
// the conversation of the pull request from feat/x when its head was
// headAtEarly; the head has moved to prHead since, by pact-only commits.
func commentWorld(t *testing.T, body string) world {
	w := reviewWorld(t)
	yes := true
	w.EventName = "issue_comment"
	w.Event = bot.Payload(map[string]any{"action": "created", "repository": map[string]any{"full_name": "o/r"}, "sender": map[string]any{"login": "revuser"},
		"issue":   map[string]any{"number": 1, "pull_request": map[string]any{"url": "u"}},
		"comment": map[string]any{"id": 9, "body": body, "author_association": "MEMBER", "user": map[string]any{"login": "revuser"}}})
	w.Reviews, w.Review = nil, nil
	w.Comment = &ghfacts.Comment{ID: 9, Found: true, AuthorLogin: "revuser", Body: body, URL: "https://github.example/o/r/pull/1#issuecomment-9", CreatedAt: decideTime, UpdatedAt: decideTime}
	w.CanWrite = &yes
	w.HeadAtComment = &ghfacts.HeadAt{SHA: headAtEarly}
	w.logs[headAtEarly] = w.logs[prHead]
	return w
}

func TestDecide(t *testing.T) {
	t.Parallel()
	const (
		pr, cfg, reviews, comment, perm, head, log = bot.NeedPullRequest, bot.NeedConfig, bot.NeedReviews, bot.NeedComment,
			bot.NeedPermission, bot.NeedHeadAtComment, bot.NeedLog
	)
	no := false
	tests := []struct {
		name  string
		world func(t *testing.T) world
		edit  func(w *world)
		needs []bot.Need
		// What Decide decides: why it ignores the event (and whether that
		// goes to the job log), the one reply (a part of it), the commit
		// of the one event it records (none when ""), a recheck, a status
		// reply, a failure.
		ignored string
		notice  bool
		reply   string
		at      string
		recheck bool
		status  bool
		err     bool
	}{
		// Reviews.
		{name: "an approval by the reviewer", world: reviewWorld, needs: []bot.Need{pr, cfg, reviews, log}, at: prHead},
		{name: "the bot's own account", world: reviewWorld, edit: func(w *world) { w.Event.Sender.Login = "GitHub-Actions[bot]" },
			ignored: "the event was caused by the bot's own account"},
		{name: "a review payload without its review", world: reviewWorld, edit: func(w *world) { w.Event.Review = nil },
			ignored: "the review payload has no review"},
		{name: "a review payload without its pull request", world: reviewWorld, edit: func(w *world) { w.Event.PullRequest = nil },
			ignored: "the review payload has no review"},
		{name: "a review edited", world: reviewWorld, edit: func(w *world) { w.Event.Action = "edited" }, needs: []bot.Need{pr}, recheck: true},
		{name: "a review dismissed", world: reviewWorld, edit: func(w *world) { w.Event.Action = "dismissed" }, needs: []bot.Need{pr}, recheck: true},
		{name: "another review action", world: reviewWorld, edit: func(w *world) { w.Event.Action = "deleted" },
			ignored: "review deleted events record nothing"},
		{name: "an event bot mode does not know", world: reviewWorld, edit: func(w *world) { w.EventName = "push" },
			ignored: "bot mode does nothing on push events"},
		{name: "an unusable configuration", world: reviewWorld, edit: func(w *world) {
			w.Config = &config.File{Present: true, Config: config.Default(), Err: errors.New("seats: not a map")}
		},
			needs: []bot.Need{pr, cfg}, err: true},
		{name: "a reviewer without a seat, by the payload", world: reviewWorld, edit: func(w *world) { w.Event.Review.User.Login = "stranger" },
			needs: []bot.Need{pr, cfg}, ignored: "the reviewer holds no seat"},
		{name: "a reviewer without a seat, by GitHub's record", world: reviewWorld, edit: func(w *world) { w.Review.AuthorLogin = "stranger" },
			needs: []bot.Need{pr, cfg, reviews}, ignored: "the reviewer holds no seat"},
		{name: "a review GitHub does not list", world: reviewWorld, edit: func(w *world) { w.Reviews, w.Review = map[int64]ghfacts.Review{}, nil },
			needs: []bot.Need{pr, cfg, reviews}, ignored: "review 7 does not exist on this pull request, so it records nothing", notice: true},
		{name: "a review the payload numbers 0", world: reviewWorld, edit: func(w *world) { w.Event.Review.ID = 0 },
			needs: []bot.Need{pr, cfg, reviews}, ignored: "review 0 does not exist on this pull request, so it records nothing", notice: true},
		{name: "a review listed without its record", world: reviewWorld, edit: func(w *world) { w.Review = nil },
			needs: []bot.Need{pr, cfg, reviews}, ignored: "review 7 does not exist on this pull request, so it records nothing", notice: true},
		{name: "a review dismissed since", world: reviewWorld, edit: func(w *world) { w.Reviews[7] = withState(w.Reviews[7], "DISMISSED") },
			needs: []bot.Need{pr, cfg, reviews}, ignored: "review 7 by account revuser was dismissed, so it records nothing", notice: true},
		{name: "a review that is a comment", world: reviewWorld, edit: func(w *world) { w.Reviews[7] = withState(w.Reviews[7], "COMMENTED") },
			needs: []bot.Need{pr, cfg, reviews}, ignored: "review 7 by account revuser is commented, not a decision, so it records nothing", notice: true},
		{name: "a review overridden by a later one", world: reviewWorld, edit: func(w *world) {
			w.Reviews[8] = ghfacts.Review{Found: true, State: "CHANGES_REQUESTED", AuthorLogin: "revuser", CommitID: prHead, SubmittedAt: decideTime.Add(time.Minute)}
		}, needs: []bot.Need{pr, cfg, reviews}, ignored: "review 7 by account revuser was overridden by their later review 8, which is changes_requested, so it records nothing", notice: true},
		{name: "a reviewed commit without a log", world: reviewWorld, edit: func(w *world) { delete(w.logs, prHead) },
			needs: []bot.Need{pr, cfg, reviews, log}, ignored: "the reviewed commit has no .pact/log.jsonl"},

		// Comments.
		{name: "/pact accept by a writer", world: acceptComment, needs: []bot.Need{pr, cfg, comment, perm, head, log}, at: headAtEarly},
		{name: "/pact accept on a review comment", world: acceptComment, edit: func(w *world) {
			w.EventName, w.Event.Issue, w.Event.PullRequest = "pull_request_review_comment", nil, &ghevent.PullRequest{Number: 1}
		}, needs: []bot.Need{pr, cfg, comment, perm, head, log}, at: headAtEarly},
		{name: "/pact accept on a fork", world: acceptComment, edit: func(w *world) { w.PullRequest.Fork = true },
			needs: []bot.Need{pr, cfg, comment, perm, log}, at: prHead},
		{name: "a comment payload without its comment", world: acceptComment, edit: func(w *world) { w.Event.Comment = nil },
			ignored: "the comment payload has no comment"},
		{name: "a comment on a plain issue", world: acceptComment, edit: func(w *world) { w.Event.Issue.PullRequest = nil },
			ignored: "the comment is on an issue, not a pull request"},
		{name: "a comment payload without its issue", world: acceptComment, edit: func(w *world) { w.Event.Issue = nil },
			ignored: "the comment is on an issue, not a pull request"},
		{name: "a review comment payload without its pull request", world: acceptComment, edit: func(w *world) { w.EventName = "pull_request_review_comment" },
			ignored: "the review comment payload has no pull request"},
		{name: "the bot's own reply", world: acceptComment, edit: func(w *world) { w.Event.Comment.Body += "\n\n" + bot.ReplyMarker },
			ignored: "the comment is the bot's own"},
		{name: "a comment by the bot's account", world: acceptComment, edit: func(w *world) {
			w.Event.Comment.User.Login, w.Event.Sender.Login = "my-app[bot]", "revuser"
			w.BotLogins = append(w.BotLogins, "my-app[bot]")
		}, ignored: "the comment is the bot's own"},
		{name: "a comment edited", world: acceptComment, edit: func(w *world) { w.Event.Action = "edited" }, needs: []bot.Need{pr}, recheck: true},
		{name: "a comment deleted", world: acceptComment, edit: func(w *world) { w.Event.Action = "deleted" }, needs: []bot.Need{pr}, recheck: true},
		{name: "another comment action", world: acceptComment, edit: func(w *world) { w.Event.Action = "pinned" },
			ignored: "comment pinned events record nothing"},
		{name: "an unusable configuration, on a comment", world: acceptComment, edit: func(w *world) {
			// The reply names the default branch it was read from, not the
			// pull request's base.
			w.Config = &config.File{Present: true, Config: config.Default(), Err: errors.New("seats: not a map"), Branch: "main"}
			pr := *w.PullRequest
			pr.BaseRef = "scratch"
			w.PullRequest = &pr
		},
			needs: []bot.Need{pr, cfg}, reply: bot.ConfigUnusable(".github/pact.yml", "main", errors.New("seats: not a map")), err: true},
		{name: "a comment gone", world: acceptComment, edit: func(w *world) { w.Comment, w.CommentGone = nil, true },
			needs: []bot.Need{pr, cfg, comment}, ignored: "the comment no longer exists"},
		{name: "a comment without a command, as GitHub has it now", world: acceptComment, edit: func(w *world) { w.Comment.Body = "LGTM" },
			needs: []bot.Need{pr, cfg, comment}, ignored: "the comment holds no /pact command"},
		{name: "/pact status asks no permission", world: func(t *testing.T) world { return commentWorld(t, "/pact status") },
			needs: []bot.Need{pr, cfg, comment, log}, status: true},
		{name: "/pact recheck by a writer", world: func(t *testing.T) world { return commentWorld(t, "/pact recheck") },
			needs: []bot.Need{pr, cfg, comment, perm, log}, recheck: true},
		{name: "/pact accept by an association that cannot write", world: acceptComment, edit: func(w *world) { w.Event.Comment.AuthorAssociation = "first_time_contributor" },
			needs: []bot.Need{pr, cfg, comment, log}, reply: "@revuser needs write permission on this repository to use `/pact accept`"},
		{name: "/pact accept by an account without write permission", world: acceptComment, edit: func(w *world) { w.CanWrite = &no },
			needs: []bot.Need{pr, cfg, comment, perm, log}, reply: "@revuser needs write permission on this repository to use `/pact accept`"},
		{name: "an edited /pact accept", world: acceptComment, edit: func(w *world) { w.Comment.UpdatedAt = w.Comment.CreatedAt.Add(time.Second) },
			needs: []bot.Need{pr, cfg, comment, perm}, reply: bot.CommentEdited("revuser")},
		{name: "/pact accept when the head at the comment cannot be told", world: acceptComment,
			edit:  func(w *world) { w.HeadAtComment = &ghfacts.HeadAt{Why: "this GitHub server keeps no push history"} },
			needs: []bot.Need{pr, cfg, comment, perm, head}, reply: bot.HeadUnknown("this GitHub server keeps no push history")},
		{name: "/pact accept where the head had no log", world: acceptComment, edit: func(w *world) { delete(w.logs, headAtEarly) },
			needs: []bot.Need{pr, cfg, comment, perm, head, log}, ignored: "the pull request's head has no .pact/log.jsonl", reply: bot.NoPact(".pact/log.jsonl")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := tc.world(t)
			if tc.edit != nil {
				tc.edit(&w)
			}
			needs, d := ask(t, w)
			if !slices.Equal(needs, tc.needs) {
				t.Errorf("asked for %v, want %v", needs, tc.needs)
			}
			if d.Ignored != tc.ignored || (len(d.Notices) > 0) != tc.notice || tc.notice && !slices.Equal(d.Notices, []string{tc.ignored}) {
				t.Errorf("ignored %q (notices %q), want %q (notice %v)", d.Ignored, d.Notices, tc.ignored, tc.notice)
			}
			switch {
			case tc.reply == "" && len(d.Replies) > 0:
				t.Errorf("replies %q, want none", d.Replies)
			case tc.reply != "" && (len(d.Replies) != 1 || !strings.Contains(d.Replies[0], tc.reply)):
				t.Errorf("replies %q, want one holding %q", d.Replies, tc.reply)
			}
			var at string
			switch len(d.Intents) {
			case 0:
			case 1:
				at = payloadCommit(d.Intents[0].Draft)
			default:
				t.Errorf("intents %+v, want at most one", d.Intents)
			}
			if at != tc.at || tc.at != "" && d.At != tc.at {
				t.Errorf("recorded an event on %q (decided at %q), want %q", at, d.At, tc.at)
			}
			if d.Recheck != tc.recheck || d.Status != tc.status || (d.Err != nil) != tc.err {
				t.Errorf("recheck %v, status %v, err %v; want %v, %v, failure %v", d.Recheck, d.Status, d.Err, tc.recheck, tc.status, tc.err)
			}
		})
	}
}

func acceptComment(t *testing.T) world { return commentWorld(t, "/pact accept T1") }

func withState(r ghfacts.Review, state string) ghfacts.Review {
	r.State = state
	return r
}

func payloadCommit(d projection.Draft) string {
	switch p := d.Payload.(type) {
	case projection.AcceptPayload:
		return p.Commit
	case projection.ChangesRequestedPayload:
		return p.Commit
	}
	return fmt.Sprintf("a %T payload", d.Payload)
}

// The configuration's failure names the file and the branch, and wraps
// the cause.
func TestDecideConfigError(t *testing.T) {
	t.Parallel()
	w := reviewWorld(t)
	cause := errors.New("seats: not a map")
	w.Config = &config.File{Present: true, Config: config.Default(), Err: cause, Branch: "trunk"}
	_, d := ask(t, w)
	if d.Err == nil || !errors.Is(d.Err, cause) || d.Err.Error() != "read .github/pact.yml on the default branch trunk: seats: not a map" {
		t.Errorf("err = %v", d.Err)
	}
}

// The reaction to an acknowledged comment: 😕 only when every command that
// asked for an event was refused.
func TestReaction(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		intents, refused, recorded int
		want                       string
	}{
		{0, 0, 0, "+1"}, // /pact status, /pact help
		{1, 0, 1, "+1"},
		{1, 0, 0, "confused"}, // the engine refused it at write time
		{0, 1, 0, "confused"}, // the task did not await review
		{1, 1, 1, "+1"},
		{2, 0, 0, "confused"},
	} {
		d := bot.Decision{Intents: make([]bot.Intent, c.intents), Refused: c.refused}
		if got := d.Reaction(c.recorded); got != c.want {
			t.Errorf("%d intents, %d refused, %d recorded: %s, want %s", c.intents, c.refused, c.recorded, got, c.want)
		}
	}
}

// An approval of accepted tasks renews the coverage of those the judgement
// of the head says it renewed, and says so; else it says why it recorded
// nothing.
func TestRenewReply(t *testing.T) {
	t.Parallel()
	w := reviewWorld(t)
	w.logs[prHead] = rule1State(t, projection.StatusAccepted)
	_, d := ask(t, w)
	if !slices.Equal(d.Renew, []string{"T1"}) || !d.Recheck || len(d.Replies) != 0 || len(d.Intents) != 0 {
		t.Fatalf("decision %+v, want to renew T1 after a recheck", d)
	}
	for _, c := range []struct {
		renewed map[string]int64
		want    string
	}{
		{map[string]int64{"T1": 7}, bot.RenewedReply("revuser", []string{"T1"}, prHead)},
		{map[string]int64{"T1": 6}, d.NotRenewed}, // another approval renewed it
		{nil, d.NotRenewed}, // the head could not be judged
	} {
		if got := d.RenewReply(c.renewed); got != c.want {
			t.Errorf("renewed %v: %q, want %q", c.renewed, got, c.want)
		}
	}
	if !strings.Contains(d.NotRenewed, "so this review recorded nothing") {
		t.Errorf("NotRenewed = %q", d.NotRenewed)
	}
}
