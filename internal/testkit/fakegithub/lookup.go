package fakegithub

import (
	"fmt"
	"net/http"
)

// Lookups by id: one issue comment, one review comment, one commit.

func (s *Server) getIssueComment(c *call) *reply {
	id, _ := c.intParam("comment_id")
	cm := s.comments[id]
	if cm == nil || cm.repo != c.repo {
		return errorReply(http.StatusNotFound, "Not Found")
	}
	return jsonReply(http.StatusOK, s.commentJSON(cm))
}

func (s *Server) getReviewComment(c *call) *reply {
	id, _ := c.intParam("comment_id")
	cm := s.reviewComments[id]
	if cm == nil || cm.repo != c.repo {
		return errorReply(http.StatusNotFound, "Not Found")
	}
	base := s.apiRepo(cm.repo)
	self := fmt.Sprintf("%s/pulls/comments/%d", base, cm.id)
	html := fmt.Sprintf("%s/pull/%d#discussion_r%d", s.htmlRepo(cm.repo), cm.number, cm.id)
	prURL := fmt.Sprintf("%s/pulls/%d", base, cm.number)
	head := ""
	if p := s.pullIn(cm.repo, cm.number); p != nil {
		head = s.headSHA(p)
	}
	return jsonReply(http.StatusOK, obj{
		// The fake keeps no diff position: the comment sits on the first
		// line of README.md of the pull request's head.
		"pull_request_review_id": nil,
		"diff_hunk":              "@@ -1 +1 @@",
		"path":                   "README.md",
		"commit_id":              head,
		"original_commit_id":     head,
		"author_association":     "COLLABORATOR",
		"_links":                 obj{"self": link(self), "html": link(html), "pull_request": link(prURL)},
		"id":                     cm.id,
		"node_id":                nodeID("PRRC", cm.id),
		"url":                    self,
		"body":                   cm.body,
		"user":                   s.nullableUser(cm.login),
		"created_at":             ts(cm.created),
		"updated_at":             ts(cm.updated),
		"html_url":               html,
		"pull_request_url":       prURL,
		"reactions":              s.rollupJSON(self+"/reactions", cm.reactions),
	})
}

// getRepoCommit answers GET /repos/{owner}/{repo}/commits/{ref}: the
// commit (with its GitHub accounts and verification) and no files.
func (s *Server) getRepoCommit(c *call) *reply {
	sha := s.resolveRef(c.repo, c.params["ref"])
	cm := s.store.commits[sha]
	if cm == nil {
		return errorReply(http.StatusUnprocessableEntity, "No commit found for SHA: "+c.params["ref"])
	}
	body := s.commitJSON(c.repo, cm)
	body["files"] = []any{}
	return jsonReply(http.StatusOK, body)
}
