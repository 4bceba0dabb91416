package ghapi

import (
	"context"
	"net/url"
)

// User is a GitHub account.
type User struct {
	Login string
	// Type is "User", "Organization" or "Bot".
	Type string
}

// User reads the account login; an unknown login yields ErrNotFound.
func (c *Client) User(ctx context.Context, login string) (*User, error) {
	var body struct {
		Login string `json:"login"`
		Type  string `json:"type"`
	}
	if err := c.getJSON(ctx, "read user "+login, "users/"+url.PathEscape(login), "", &body); err != nil {
		return nil, err
	}
	return &User{Login: body.Login, Type: body.Type}, nil
}
