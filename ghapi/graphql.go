package ghapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// GraphQL traffic: one endpoint, plain net/http through the same retrying
// transport (and token) as REST. GitHub answers a primary rate limit on
// GraphQL with 200 and an error of type RATE_LIMITED (or RATE_LIMIT); the
// transport retries it like a REST rate limit (see classify).

// graphQLURLFor derives the GraphQL endpoint from the REST base URL when
// the runner does not name it (GITHUB_GRAPHQL_URL): https://HOST/api/v3/ →
// https://HOST/api/graphql (GitHub Enterprise Server), otherwise
// BASE/graphql (github.com and GHE.com's api.HOST).
func graphQLURLFor(restBase string) string {
	base := strings.TrimRight(restBase, "/")
	if rest, ok := strings.CutSuffix(base, "/api/v3"); ok {
		return rest + "/api/graphql"
	}
	return base + "/graphql"
}

// graphQLKey marks a request context as a GraphQL query, whose 200 answers
// the transport inspects for rate limits. Queries are reads, so they are
// retried like GETs.
type graphQLKey struct{}

// maxGraphQLAnswer bounds one answer (the files of .pact/ included): above
// it the read fails rather than exhaust memory.
const maxGraphQLAnswer = 256 << 20

// errNoGraphQL is a GraphQL endpoint that does not answer GraphQL (404,
// 405 or 501 at its URL).
var errNoGraphQL = errors.New("no GraphQL endpoint")

// GraphQLError is a GraphQL answer's error list.
type GraphQLError struct {
	Messages []string
	// Types are the errors' "type" fields (NOT_FOUND, FORBIDDEN, ...).
	Types []string
}

func (e *GraphQLError) Error() string {
	return "graphql: " + strings.Join(e.Messages, "; ")
}

// Unwrap maps GitHub's error types to this package's sentinels.
func (e *GraphQLError) Unwrap() error {
	for _, t := range e.Types {
		switch t {
		case "NOT_FOUND":
			return ErrNotFound
		case "FORBIDDEN":
			return ErrForbidden
		case "RATE_LIMITED", "RATE_LIMIT":
			return ErrRateLimited
		}
	}
	return nil
}

type graphQLErrors []graphQLError

type graphQLError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
	Path    []any  `json:"path"`
}

// graphql sends one query and decodes its "data" into out. An answer with
// errors is an error, even with partial data.
func (c *Client) graphql(ctx context.Context, op, query string, vars map[string]any, out any) error {
	return c.graphqlPartial(ctx, op, query, vars, out, nil)
}

// graphqlPartial is graphql for a query some of whose fields may fail
// alone: when every error of the answer is at a path optional accepts,
// the errors are logged and the data stands, with null where they were.
func (c *Client) graphqlPartial(ctx context.Context, op, query string, vars map[string]any, out any, optional func(path []any) bool) error {
	body, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	req, err := http.NewRequestWithContext(context.WithValue(ctx, graphQLKey{}, true), http.MethodPost, c.graphqlURL, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.gh.UserAgent)
	resp, err := c.http.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // a RetryError names the request itself
		}
		return fmt.Errorf("%s: %w", op, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxGraphQLAnswer+1))
	if err != nil {
		return fmt.Errorf("%s: read the answer: %w", op, err)
	}
	if len(data) > maxGraphQLAnswer {
		return fmt.Errorf("%s: the answer is larger than %d MiB", op, maxGraphQLAnswer>>20)
	}
	if resp.StatusCode != http.StatusOK {
		ae := &APIError{Method: http.MethodPost, Path: req.URL.Path, StatusCode: resp.StatusCode, Message: errorMessage(data)}
		switch resp.StatusCode {
		case http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusNotImplemented:
			// The endpoint itself is not there (a GraphQL-level "not
			// found" is a 200 with errors): callers may fall back to REST.
			ae.kind = errNoGraphQL
		case http.StatusUnauthorized, http.StatusForbidden:
			ae.kind = ErrForbidden
		}
		return fmt.Errorf("%s: %w", op, ae)
	}
	var answer struct {
		Data   json.RawMessage `json:"data"`
		Errors graphQLErrors   `json:"errors"`
	}
	if err := json.Unmarshal(data, &answer); err != nil {
		return fmt.Errorf("%s: the answer is not GraphQL JSON: %w", op, err)
	}
	if len(answer.Errors) > 0 && optional != nil && !slices.ContainsFunc(answer.Errors, func(e graphQLError) bool { return !optional(e.Path) }) {
		for _, e := range answer.Errors {
			c.logger.WarnContext(ctx, "GitHub did not answer part of a query; going on without it", "op", op, "path", e.Path, "type", e.Type, "message", e.Message)
		}
		answer.Errors = nil
	}
	if len(answer.Errors) > 0 {
		ge := &GraphQLError{}
		for _, e := range answer.Errors {
			ge.Messages, ge.Types = append(ge.Messages, e.Message), append(ge.Types, e.Type)
		}
		return fmt.Errorf("%s: %w", op, ge)
	}
	if err := json.Unmarshal(answer.Data, out); err != nil {
		return fmt.Errorf("%s: decode the answer: %w", op, err)
	}
	return nil
}

// graphQLRateLimited reports a GraphQL answer that is a rate limit (200
// with an error of type RATE_LIMITED or RATE_LIMIT), and its message.
func graphQLRateLimited(data []byte) (string, bool) {
	var answer struct {
		Errors graphQLErrors `json:"errors"`
	}
	if json.Unmarshal(data, &answer) != nil {
		return "", false
	}
	for _, e := range answer.Errors {
		if e.Type == "RATE_LIMITED" || e.Type == "RATE_LIMIT" {
			return e.Message, true
		}
	}
	return "", false
}
