package ghapi

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
)

// Repository is what doctor needs of a repository.
type Repository struct {
	FullName      string
	DefaultBranch string
	Private       bool
	Archived      bool
}

// Repository reads the repository the client works on.
func (c *Client) Repository(ctx context.Context) (*Repository, error) {
	var body struct {
		FullName      string `json:"full_name"`
		DefaultBranch string `json:"default_branch"`
		Private       bool   `json:"private"`
		Archived      bool   `json:"archived"`
	}
	if err := c.getJSON(ctx, "read repository "+c.owner+"/"+c.repo, c.repoPath(), "", &body); err != nil {
		return nil, err
	}
	return &Repository{FullName: body.FullName, DefaultBranch: body.DefaultBranch, Private: body.Private, Archived: body.Archived}, nil
}

// Permission levels returned by Client.Permission, strongest first.
const (
	PermissionAdmin    = "admin"
	PermissionMaintain = "maintain"
	PermissionWrite    = "write"
	PermissionTriage   = "triage"
	PermissionRead     = "read"
	PermissionNone     = "none"
)

// Permission returns the permission login has on the repository: one of
// "admin", "maintain", "write", "triage", "read", "none". GitHub's
// "permission" field only knows admin/write/read/none; "maintain" and
// "triage" are taken from "role_name". A custom role reports its base
// permission. An unknown user (404) is "none".
func (c *Client) Permission(ctx context.Context, login string) (string, error) {
	u := c.repoPath() + "/collaborators/" + url.PathEscape(login) + "/permission"
	req, err := c.gh.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return "", fmt.Errorf("get permission of %s: %w", login, err)
	}
	// go-github v60's RepositoryPermissionLevel lacks role_name.
	var body struct {
		Permission string `json:"permission"`
		RoleName   string `json:"role_name"`
	}
	if _, err := c.gh.Do(ctx, req, &body); err != nil {
		werr := wrapErr("get permission of "+login, err)
		if statusOf(werr) == http.StatusNotFound {
			return PermissionNone, nil
		}
		return "", werr
	}
	switch body.RoleName {
	case PermissionMaintain, PermissionTriage:
		return body.RoleName, nil
	}
	switch body.Permission {
	case PermissionAdmin, PermissionWrite, PermissionRead, PermissionNone:
		return body.Permission, nil
	case "":
		return PermissionNone, nil
	}
	return "", fmt.Errorf("get permission of %s: unknown permission %q", login, body.Permission)
}
