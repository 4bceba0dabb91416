// Package ghapi owns all GitHub REST and GraphQL traffic of pact-action.
//
// It is the only package of the project that imports go-github. Callers get
// plain structs (PR, Commit, Review, ...) and typed errors (ErrNotFound,
// ErrForbidden, ErrNotFastForward, ErrRateLimited) they can
// test with errors.Is, so no GitHub client type leaks out.
//
// Every request goes through one retrying http.RoundTripper (see
// RetryPolicy): 5xx answers, 429 answers and 403 answers that are rate
// limits are retried with exponential backoff and jitter, honouring
// Retry-After and x-ratelimit-reset. Every attempt has its own deadline
// (RetryPolicy.AttemptTimeout). A read (GET, or a GraphQL query) is also
// asked again when it got no answer in time, its connection dropped, or
// its answer was cut off mid-way. A write is not: the writes whose
// outcome matters (creating and completing a check run, moving a branch,
// posting a comment) are looked up after an unknown outcome and only then
// repeated; the others are repeated after a 5xx only where a repeat
// changes nothing (a reaction, a review request, a Git object named by its
// content, which nothing refers to until the branch moves). Nothing else in the
// project retries GitHub calls. GraphQL queries go through the same
// transport.
//
// What is read at a commit id never changes, so the client keeps it for
// the rest of the run (bounded, see objectCache): a file at a commit, a
// blob by its object id, a commit's tree. The bot's judgement of the
// commit it just wrote thus re-reads nothing it already has, yet judges the
// commit as GitHub has it: every blob is taken by the object id GitHub
// reports.
package ghapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"
	"golang.org/x/oauth2"
)

// defaultAPIURL is the REST endpoint of github.com.
const defaultAPIURL = "https://api.github.com"

// Options configures New.
type Options struct {
	// Token authenticates requests (GITHUB_TOKEN or a PAT). Empty means an
	// unauthenticated client.
	Token string
	// APIURL is the REST base URL (the caller passes $GITHUB_API_URL). Empty means
	// https://api.github.com. GitHub Enterprise Server URLs
	// ("https://host/api/v3") are supported.
	APIURL string
	// GraphQLURL is the GraphQL endpoint (the caller passes
	// $GITHUB_GRAPHQL_URL, which differs from the REST base on GitHub
	// Enterprise Server). Empty means derived from the REST base:
	// https://host/api/v3 → https://host/api/graphql, else BASE/graphql.
	GraphQLURL string
	// Owner and Repo name the repository every method works on.
	Owner string
	Repo  string
	// HTTPClient is the client whose transport, timeout, jar and redirect
	// policy are used (tests). Nil means http.DefaultTransport.
	HTTPClient *http.Client
	// Retry bounds the retries; zero fields take their defaults
	// (RetryPolicy).
	Retry RetryPolicy
	// Sleep waits between retries; nil means a timer honouring ctx. Tests
	// inject a function that records the delay and returns at once.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the retry transport's clock: it measures the time spent on a
	// request, and turns the dates of x-ratelimit-reset and Retry-After
	// into waits for an answer without a Date header (GitHub's clock,
	// used wherever there is one). Nil means time.Now. Tests pin it, so
	// that a mandated wait does not depend on how long the test was
	// paused.
	Now func() time.Time
	// Logger receives retry warnings; nil discards them.
	Logger *slog.Logger
}

// Client talks to one repository. It is safe for concurrent use.
type Client struct {
	gh         *github.Client
	http       *http.Client // authenticated, retrying: GraphQL goes through it
	graphqlURL string
	owner      string
	repo       string
	logger     *slog.Logger
	sleep      func(context.Context, time.Duration) error
	backoff    func(attempt int) time.Duration // the transport's
	cache      *objectCache
}

// New builds a Client. ctx is only used while building the HTTP client
// (oauth2 reads its base client from it); it is not kept.
func New(ctx context.Context, o Options) (*Client, error) {
	if o.Owner == "" || o.Repo == "" {
		return nil, errors.New("ghapi: owner and repo are required")
	}
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}

	base := &http.Client{}
	if o.HTTPClient != nil {
		c := *o.HTTPClient
		base = &c
	}
	rt := newRetryTransport(base.Transport, o.Retry, o.Sleep, logger)
	if o.Now != nil {
		rt.now = o.Now
	}
	base.Transport = rt

	hc := base
	if o.Token != "" {
		ts := oauth2.StaticTokenSource(&oauth2.Token{AccessToken: o.Token, TokenType: "Bearer"})
		hc = oauth2.NewClient(context.WithValue(ctx, oauth2.HTTPClient, base), ts)
	}

	gh := github.NewClient(hc)
	gh.UserAgent = "pact-action (go-github/v60)"

	apiURL := o.APIURL
	if apiURL == "" {
		apiURL = defaultAPIURL
	}
	u, err := url.Parse(apiURL)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("ghapi: invalid api url %q", apiURL)
	}
	if !strings.EqualFold(u.Host, "api.github.com") {
		// GitHub Enterprise Server (https://host/api/v3) and other hosts.
		// WithEnterpriseURLs appends /api/v3/ unless the host is an
		// "api." host, which suits GHE.com data residency hosts too.
		gh, err = gh.WithEnterpriseURLs(apiURL, apiURL)
		if err != nil {
			return nil, fmt.Errorf("ghapi: api url %q: %w", apiURL, err)
		}
	}
	sleep := o.Sleep
	if sleep == nil {
		sleep = SleepContext
	}
	graphqlURL := o.GraphQLURL
	if graphqlURL == "" {
		graphqlURL = graphQLURLFor(gh.BaseURL.String())
	}
	if g, err := url.Parse(graphqlURL); err != nil || g.Scheme == "" || g.Host == "" {
		return nil, fmt.Errorf("ghapi: invalid graphql url %q", graphqlURL)
	}
	return &Client{gh: gh, http: hc, graphqlURL: graphqlURL, owner: o.Owner, repo: o.Repo, logger: logger, sleep: sleep,
		backoff: rt.backoff, cache: newObjectCache(defaultCacheBytes)}, nil
}

// GraphQLURL returns the GraphQL endpoint in use.
func (c *Client) GraphQLURL() string { return c.graphqlURL }

// BaseURL returns the REST base URL in use (with a trailing slash).
func (c *Client) BaseURL() string { return c.gh.BaseURL.String() }

// repoPath is "repos/{owner}/{repo}" with both parts escaped.
func (c *Client) repoPath() string {
	return "repos/" + url.PathEscape(c.owner) + "/" + url.PathEscape(c.repo)
}
