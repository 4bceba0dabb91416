package fakegithub

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The repository activity API: every move of a branch, stamped with the
// fake's clock, which is what lets a client tell the head of a branch at
// the time of a comment.

type activityState struct {
	id            int64
	ref           string
	before, after string
	kind          string // push, force_push, branch_creation, branch_deletion
	actor         string
	timestamp     time.Time
}

// setRefLocked moves ref of r to sha and records the move as GitHub's
// activity API would. actor is the login that pushed.
func (s *Server) setRefLocked(r *repoState, ref, sha, actor string) {
	before := r.refs[ref]
	kind := "push"
	switch {
	case before == "":
		kind = "branch_creation"
		before = strings.Repeat("0", 40)
	case !s.store.isAncestor(before, sha):
		kind = "force_push"
	}
	r.refs[ref] = sha
	if !strings.HasPrefix(ref, "refs/heads/") {
		return
	}
	if actor == "" {
		actor = DefaultLogin
	}
	r.activity = append(r.activity, &activityState{id: s.newID(), ref: ref, before: before, after: sha, kind: kind, actor: actor, timestamp: s.tick()})
}

// listActivities answers GET /repos/{owner}/{repo}/activity: newest first
// (or oldest with direction=asc), filtered by ref (a branch name or
// refs/heads/...), paged by an opaque after cursor.
func (s *Server) listActivities(c *call) *reply {
	ref := c.query.Get("ref")
	if ref != "" && !strings.HasPrefix(ref, "refs/") {
		ref = "refs/heads/" + ref
	}
	var list []*activityState
	for _, a := range c.repo.activity {
		if ref == "" || a.ref == ref {
			list = append(list, a)
		}
	}
	if c.query.Get("direction") != "asc" {
		for i, j := 0, len(list)-1; i < j; i, j = i+1, j-1 {
			list[i], list[j] = list[j], list[i]
		}
	}
	per := 30
	if n, err := strconv.Atoi(c.query.Get("per_page")); err == nil && n > 0 {
		per = min(n, 100)
	}
	start := 0
	if after := c.query.Get("after"); after != "" {
		n, err := strconv.Atoi(after)
		if err != nil || n < 0 {
			return validationFailed("Invalid cursor")
		}
		start = min(n, len(list))
	}
	end := min(start+per, len(list))
	out := []any{}
	for _, a := range list[start:end] {
		out = append(out, obj{
			"id": a.id, "node_id": nodeID("RA", a.id), "before": a.before, "after": a.after, "ref": a.ref,
			"timestamp": ts(a.timestamp), "activity_type": a.kind, "actor": s.nullableUser(a.actor),
		})
	}
	rp := jsonReply(http.StatusOK, out)
	if end < len(list) {
		q := c.query
		q.Set("after", strconv.Itoa(end))
		rp.header = http.Header{"Link": {"<" + s.apiRepo(c.repo) + "/activity?" + q.Encode() + `>; rel="next"`}}
	}
	return rp
}
