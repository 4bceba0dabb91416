package fakegithub

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// Review requests, as GitHub keeps them: a pull request holds the accounts
// and teams whose review is requested; asking again for one already asked
// changes nothing; a review by an account removes its request (and that of
// every team it is a member of); asking for the pull request's author, an
// account without access to the repository, an app's account or a team
// the token cannot see fails the whole request with 422, as does a
// request that would leave more than maxRequestedReviewers requested
// (GitHub's web interface offers "Request up to 15 reviewers"; the answer
// of the API past that is not documented, so the fake's message is its
// own).

// maxRequestedReviewers is the most accounts and teams a pull request may
// have requested at once.
const maxRequestedReviewers = 15

type teamState struct {
	id      int64
	slug    string
	members []string
}

// AddTeam creates a team of the organization that owns the repositories,
// with its members; its review can be requested by a token that may read
// the organization's teams (Token.ReadsTeams).
func (s *Server) AddTeam(slug string, members ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.teams == nil {
		s.teams = map[string]*teamState{}
	}
	s.teams[strings.ToLower(slug)] = &teamState{id: s.newID(), slug: slug, members: members}
}

// RequestReviews seeds review requests on pull request number, as if
// someone had asked in the web interface: logins are accounts, and
// "team:slug" names a team.
func (s *Server) RequestReviews(number int, reviewers ...string) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.pulls[number]
	if p == nil {
		s.t.Fatalf("fakegithub: RequestReviews: unknown pull request %d", number)
	}
	for _, r := range reviewers {
		if slug, ok := strings.CutPrefix(r, "team:"); ok {
			p.requestedTeams = addFold(p.requestedTeams, slug)
		} else {
			p.requestedUsers = addFold(p.requestedUsers, r)
		}
	}
}

// RequestedReviewers returns the accounts and team slugs whose review is
// requested on pull request number, in the order they were asked.
func (s *Server) RequestedReviewers(number int) (users, teams []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.pulls[number]
	if p == nil {
		return nil, nil
	}
	return slices.Clone(p.requestedUsers), slices.Clone(p.requestedTeams)
}

func addFold(list []string, name string) []string {
	if slices.ContainsFunc(list, func(s string) bool { return strings.EqualFold(s, name) }) {
		return list
	}
	return append(list, name)
}

func removeFold(list []string, name string) []string {
	return slices.DeleteFunc(list, func(s string) bool { return strings.EqualFold(s, name) })
}

// reviewedLocked removes the requests a review by login answers.
func (s *Server) reviewedLocked(p *pullState, login string) {
	p.requestedUsers = removeFold(p.requestedUsers, login)
	p.requestedTeams = slices.DeleteFunc(p.requestedTeams, func(slug string) bool {
		t := s.teams[strings.ToLower(slug)]
		return t != nil && slices.ContainsFunc(t.members, func(m string) bool { return strings.EqualFold(m, login) })
	})
}

func (s *Server) teamJSON(slug string) obj {
	t := s.teams[strings.ToLower(slug)]
	var id int64
	if t != nil {
		id, slug = t.id, t.slug
	}
	org := "octo-org"
	if len(s.repoOrder) > 0 {
		org = s.repoOrder[0].owner
	}
	base := fmt.Sprintf("%s/orgs/%s/teams/%s", s.URL, url.PathEscape(org), url.PathEscape(slug))
	return obj{
		"id": id, "node_id": nodeID("T", id), "url": base, "html_url": fmt.Sprintf("%s/orgs/%s/teams/%s", s.URL, org, slug),
		"name": slug, "slug": slug, "description": nil, "privacy": "closed", "notification_setting": "notifications_enabled",
		"permission": "pull", "members_url": base + "/members{/member}", "repositories_url": base + "/repos",
		"parent": nil, "type": "organization",
	}
}

func (s *Server) requestedJSON(p *pullState) (users, teams []any) {
	users, teams = []any{}, []any{}
	for _, u := range p.requestedUsers {
		users = append(users, s.userJSON(u))
	}
	for _, t := range p.requestedTeams {
		teams = append(teams, s.teamJSON(t))
	}
	return users, teams
}

func (s *Server) listRequestedReviewers(c *call) *reply {
	p := s.issuePull(c)
	if p == nil {
		return errorReply(http.StatusNotFound, "Not Found")
	}
	users, teams := s.requestedJSON(p)
	return jsonReply(http.StatusOK, obj{"users": users, "teams": teams})
}

func (s *Server) requestReviewers(c *call) *reply {
	p := s.issuePull(c)
	if p == nil {
		return errorReply(http.StatusNotFound, "Not Found")
	}
	var in struct {
		Reviewers     []string `json:"reviewers"`
		TeamReviewers []string `json:"team_reviewers"`
	}
	if rp := c.decode(&in); rp != nil {
		return rp
	}
	notCollaborator := validationFailed(fmt.Sprintf("Reviews may only be requested from collaborators. One or more of the users or teams you specified is not a collaborator of the %s repository.", c.repo.fullName()))
	for _, login := range in.Reviewers {
		level := s.perms[strings.ToLower(login)]
		switch {
		case strings.EqualFold(login, p.author):
			return validationFailed("Review cannot be requested from pull request author.")
		case strings.HasSuffix(strings.ToLower(login), "[bot]") || level == "" || level == "none":
			return notCollaborator
		}
	}
	for _, slug := range in.TeamReviewers {
		t := s.teams[strings.ToLower(slug)]
		switch {
		case !c.tok.ReadsTeams:
			// What GitHub answers a workflow's GITHUB_TOKEN, which cannot
			// read the organization's teams.
			return validationFailed(fmt.Sprintf("Could not resolve to a node with the global id of '%s'.", nodeID("T", int64(len(slug)))))
		case t == nil:
			return notCollaborator
		}
	}
	users, teams := slices.Clone(p.requestedUsers), slices.Clone(p.requestedTeams)
	for _, login := range in.Reviewers {
		users = addFold(users, login)
	}
	for _, slug := range in.TeamReviewers {
		teams = addFold(teams, s.teams[strings.ToLower(slug)].slug)
	}
	if len(users)+len(teams) > maxRequestedReviewers {
		return validationFailed(fmt.Sprintf("A pull request may have at most %d requested reviewers.", maxRequestedReviewers))
	}
	p.requestedUsers, p.requestedTeams = users, teams
	p.updated = s.tick()
	return jsonReply(http.StatusCreated, s.pullSimpleJSON(p))
}
