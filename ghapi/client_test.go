package ghapi_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/internal/testkit/fakegithub"
)

func TestNewAPIURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		apiURL  string
		want    string
		wantErr bool
	}{
		{name: "github.com", apiURL: "https://api.github.com", want: "https://api.github.com/"},
		{name: "github.com trailing slash", apiURL: "https://api.github.com/", want: "https://api.github.com/"},
		{name: "enterprise server", apiURL: "https://ghe.example.com/api/v3", want: "https://ghe.example.com/api/v3/"},
		{name: "enterprise server bare host", apiURL: "https://ghe.example.com", want: "https://ghe.example.com/api/v3/"},
		{name: "ghe.com data residency", apiURL: "https://api.octocorp.ghe.com", want: "https://api.octocorp.ghe.com/"},
		{name: "not a url", apiURL: "::nope", wantErr: true},
		{name: "relative", apiURL: "api.github.com", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := ghapi.New(context.Background(), ghapi.Options{APIURL: tt.apiURL, Owner: owner, Repo: repo})
			if tt.wantErr {
				if err == nil {
					t.Fatalf("New(%q) = nil error, want an error", tt.apiURL)
				}
				return
			}
			if err != nil {
				t.Fatalf("New(%q): %v", tt.apiURL, err)
			}
			if got := c.BaseURL(); got != tt.want {
				t.Errorf("BaseURL() = %q, want %q", got, tt.want)
			}
		})
	}
}

// Not parallel: it sets an environment variable.
// The library never reads the environment (cmd passes GITHUB_API_URL in):
// an empty APIURL means github.com whatever the environment says.
func TestNewIgnoresTheEnvironment(t *testing.T) {
	t.Setenv("GITHUB_API_URL", "https://ghe.example.com/api/v3")
	c, err := ghapi.New(context.Background(), ghapi.Options{Owner: owner, Repo: repo})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.BaseURL(), "https://api.github.com/"; got != want {
		t.Errorf("BaseURL() = %q, want %q", got, want)
	}
}

func TestNewRequiresRepository(t *testing.T) {
	t.Parallel()
	if _, err := ghapi.New(context.Background(), ghapi.Options{Owner: owner}); err == nil {
		t.Fatal("New without repo succeeded")
	}
}

func TestUnauthenticatedClientSendsNoToken(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	seedRepo(t, srv)
	// A read-only token would refuse the write; without any token the
	// fake acts as the default identity, so the write succeeds.
	srv.SetToken("", fakegithub.Token{ReadOnly: true})
	c, _ := newClient(t, srv, func(o *ghapi.Options) { o.Token = "" })
	head := srv.BranchHead(owner, repo, "main")
	if _, err := c.CreateCheckRun(context.Background(), ghapi.CheckRun{Name: "pact", HeadSHA: head}); err != nil {
		t.Fatalf("CreateCheckRun without token: %v", err)
	}
}

func TestReadOnlyTokenIsForbidden(t *testing.T) {
	t.Parallel()
	srv := fakegithub.New(t)
	head := seedRepo(t, srv)
	srv.CommitFiles(owner, repo, "topic", map[string]string{"a": "1"}, "bob")
	n := srv.OpenPR(owner, repo, fakegithub.PRSeed{Head: "topic", Base: "main"})
	srv.SetToken("read-only", fakegithub.Token{ReadOnly: true})
	c, sl := newClient(t, srv, func(o *ghapi.Options) { o.Token = "read-only" })
	ctx := context.Background()

	tests := []struct {
		name string
		call func() error
	}{
		{name: "create check run", call: func() error {
			_, err := c.CreateCheckRun(ctx, ghapi.CheckRun{Name: "pact", HeadSHA: head})
			return err
		}},
		{name: "comment", call: func() error {
			_, err := c.Comment(ctx, n, "hi")
			return err
		}},
		{name: "commit files", call: func() error {
			_, err := c.CommitFiles(ctx, "main", head, map[string]ghapi.File{"a": {[]byte("b")}}, "m")
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if !errors.Is(err, ghapi.ErrForbidden) {
				t.Fatalf("error = %v, want ErrForbidden", err)
			}
			var ae *ghapi.APIError
			if !errors.As(err, &ae) || !strings.Contains(ae.Message, "Resource not accessible by integration") {
				t.Errorf("error %v does not carry GitHub's message", err)
			}
		})
	}
	if len(sl.all()) != 0 {
		t.Errorf("a permission 403 was retried: waits %v", sl.all())
	}
	// Reads still work.
	if _, err := c.ReadFile(ctx, "README.md", "main"); err != nil {
		t.Errorf("read with a read-only token: %v", err)
	}
	if got := srv.CountRequests(http.MethodPost, "/repos/acme/widgets/check-runs"); got != 1 {
		t.Errorf("check run creations = %d, want 1", got)
	}
}
