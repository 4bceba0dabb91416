package bot

import (
	"encoding/json"
	"testing"

	"github.com/pact-action/pact-action/config"
	"github.com/pact-action/pact-action/ghevent"
	"github.com/pact-action/pact-action/ghfacts"
	"github.com/pact-action/pact-action/projection"
)

// Facts of one review or comment with every fact gathered — what action
// would have asked GitHub — so that Decide decides in one call. The pull
// request is #1 from branch into main; its head is the reviewed commit, or
// the head when the comment was made.

// ReviewFacts are the facts of the submitted review r (GitHub's record)
// on a pull request from branch whose log at the reviewed commit replays
// to st.
func ReviewFacts(repo, branch string, r ghfacts.Review, cfg *config.Config, st *projection.State) Facts {
	r.Found = true
	ev := Payload(map[string]any{"action": "submitted", "repository": map[string]any{"full_name": repo},
		"sender": map[string]any{"login": r.AuthorLogin}, "pull_request": map[string]any{"number": 1},
		"review": map[string]any{"id": r.ID, "user": map[string]any{"login": r.AuthorLogin}}})
	return Facts{
		EventName:   "pull_request_review",
		Event:       ev,
		LogPath:     ".pact/log.jsonl",
		PullRequest: &ghfacts.PullRequest{Number: 1, HeadRef: branch, HeadSHA: r.CommitID, BaseRef: "main"},
		Config:      &config.File{Present: true, Config: cfg},
		Reviews:     map[int64]ghfacts.Review{r.ID: r},
		Review:      &r,
		Log:         &LogAt{Commit: r.CommitID, State: st},
	}
}

// CommentFacts are the facts of comment c (GitHub's record) on a pull
// request from branch whose head was sha when the comment was made and
// still is, with a log there that replays to st, by an account with write
// permission or not.
func CommentFacts(repo, branch, sha string, c ghfacts.Comment, canWrite bool, cfg *config.Config, st *projection.State) Facts {
	c.Found = true
	name, p := "issue_comment", map[string]any{"action": "created", "repository": map[string]any{"full_name": repo},
		"sender":  map[string]any{"login": c.AuthorLogin},
		"comment": map[string]any{"id": c.ID, "body": c.Body, "author_association": "CONTRIBUTOR", "user": map[string]any{"login": c.AuthorLogin}}}
	if c.OnDiff {
		name, p["pull_request"] = "pull_request_review_comment", map[string]any{"number": 1}
	} else {
		p["issue"] = map[string]any{"number": 1, "pull_request": map[string]any{"url": "u"}}
	}
	return Facts{
		EventName:     name,
		Event:         Payload(p),
		LogPath:       ".pact/log.jsonl",
		PullRequest:   &ghfacts.PullRequest{Number: 1, HeadRef: branch, HeadSHA: sha, BaseRef: "main"},
		Config:        &config.File{Present: true, Config: cfg},
		Comment:       &c,
		CanWrite:      &canWrite,
		HeadAtComment: &ghfacts.HeadAt{SHA: sha},
		Log:           &LogAt{Commit: sha, State: st},
	}
}

// Payload is the webhook payload p as ghevent reads it.
func Payload(p map[string]any) *ghevent.Event {
	b, err := json.Marshal(p)
	if err != nil {
		panic(err)
	}
	ev, err := ghevent.Parse(b)
	if err != nil {
		panic(err)
	}
	return ev
}

// Decided is Decide on facts that hold everything it may need.
func Decided(t testing.TB, f Facts) Decision {
	t.Helper()
	d := Decide(f)
	if d.Need != NeedNothing {
		t.Fatalf("Decide needs %s of facts that hold every one", d.Need)
	}
	return d
}

// The replies the black-box tests of package bot_test compare with: no
// other package posts them by name, Decide does.
var (
	CommentEdited  = commentEdited
	ConfigUnusable = configUnusable
	HeadUnknown    = headUnknown
	NoPact         = noPact
	RenewedReply   = renewedReply
)
