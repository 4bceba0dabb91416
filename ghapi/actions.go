package ghapi

import (
	"context"
)

// Workflow is a GitHub Actions workflow of the repository.
type Workflow struct {
	ID   int64
	Name string
	// Path is the workflow file, e.g. ".github/workflows/pact.yml".
	Path string
	// State is active, deleted, disabled_fork, disabled_inactivity or
	// disabled_manually.
	State string
}

// Workflows lists the repository's GitHub Actions workflows.
func (c *Client) Workflows(ctx context.Context) ([]Workflow, error) {
	type page struct {
		Workflows []struct {
			ID    int64  `json:"id"`
			Name  string `json:"name"`
			Path  string `json:"path"`
			State string `json:"state"`
		} `json:"workflows"`
	}
	var out []Workflow
	err := getPagesOf(ctx, c, "list workflows", c.repoPath()+"/actions/workflows", "", func(p *page) {
		for _, w := range p.Workflows {
			out = append(out, Workflow{ID: w.ID, Name: w.Name, Path: w.Path, State: w.State})
		}
	})
	return out, err
}

// DefaultWorkflowPermissions returns the permissions a workflow's
// GITHUB_TOKEN gets when the workflow does not set them: "read" or "write".
func (c *Client) DefaultWorkflowPermissions(ctx context.Context) (string, error) {
	var body struct {
		DefaultWorkflowPermissions string `json:"default_workflow_permissions"`
	}
	if err := c.getJSON(ctx, "read the default workflow permissions", c.repoPath()+"/actions/permissions/workflow", "", &body); err != nil {
		return "", err
	}
	return body.DefaultWorkflowPermissions, nil
}
