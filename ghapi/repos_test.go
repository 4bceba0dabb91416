package ghapi_test

import (
	"context"
	"testing"

	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
)

func TestPermission(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	seedRepo(t, srv)
	for _, lvl := range []string{"admin", "maintain", "write", "triage", "read", "none"} {
		srv.SetPermission("user-"+lvl, lvl)
	}
	c, _ := newClient(t, srv)
	tests := []struct{ login, want string }{
		{"user-admin", "admin"},
		{"user-maintain", "maintain"},
		{"user-write", "write"},
		{"user-triage", "triage"},
		{"user-read", "read"},
		{"user-none", "none"},
		{"stranger", "none"},
	}
	for _, tt := range tests {
		t.Run(tt.login, func(t *testing.T) {
			t.Parallel()
			got, err := c.Permission(context.Background(), tt.login)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("Permission(%s) = %q, want %q", tt.login, got, tt.want)
			}
		})
	}
}
