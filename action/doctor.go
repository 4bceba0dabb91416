package action

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/pact-action/pact-action/doctor"
	"github.com/pact-action/pact-action/ghapi"
)

// DoctorOptions are what `pact-action doctor` reads: its flags over the
// environment (DoctorDefaults).
type DoctorOptions struct {
	// Repo is owner/name; Format text or json; CheckName the check's name
	// as branch protection requires it; PactDir the pact directory ("":
	// the one the check step names).
	Repo, Format, CheckName, PactDir string
	// Token is a read-only token; APIURL and GraphQLURL GitHub's endpoints
	// ("": github.com's).
	Token, APIURL, GraphQLURL string
}

// DoctorDefaults are doctor's options from the environment alone, before
// its flags: the workflow's repository, GITHUB_TOKEN or else GH_TOKEN,
// the text format and the check named pact.
func DoctorDefaults(getenv func(string) string) DoctorOptions {
	o := DoctorOptions{Repo: getenv("GITHUB_REPOSITORY"), Format: "text", CheckName: "pact", Token: getenv("GITHUB_TOKEN"),
		APIURL: getenv("GITHUB_API_URL"), GraphQLURL: getenv("GITHUB_GRAPHQL_URL")}
	if o.Token == "" {
		o.Token = getenv("GH_TOKEN")
	}
	return o
}

// Doctor reads a repository's settings with a read-only token and says,
// one probe a line (doctor.Judge), whether they make the pact check the
// gate it should be; a failed probe is a *VerdictError. Before its first
// retry it says on stderr what it waits for; the retries are logged.
func Doctor(ctx context.Context, o DoctorOptions, stdout, stderr io.Writer, logger *slog.Logger) error {
	if o.Format != "text" && o.Format != "json" {
		return usagef("--format must be text or json, not %q", o.Format)
	}
	owner, repo, ok := strings.Cut(o.Repo, "/")
	if !ok || owner == "" || repo == "" || strings.Contains(repo, "/") {
		return usagef("doctor needs --repo owner/name (or GITHUB_REPOSITORY), got %q", o.Repo)
	}
	if o.Token == "" {
		return usagef("doctor needs a token in GITHUB_TOKEN or GH_TOKEN: a fine-grained token with read access to Metadata, Contents, Actions and Administration is enough")
	}
	gh, err := ghapi.New(ctx, ghapi.Options{Token: o.Token, APIURL: o.APIURL, GraphQLURL: o.GraphQLURL,
		Owner: owner, Repo: repo, Logger: slog.New(sayFirst(logger.Handler(), stderr, waitingFor(o.APIURL)))})
	if err != nil {
		return err
	}
	facts, err := doctor.Gather(ctx, gh, doctor.Options{CheckName: o.CheckName, PactDir: o.PactDir})
	if err != nil {
		return fmt.Errorf("doctor could not read %s/%s: %w", owner, repo, err)
	}
	probes := doctor.Judge(facts)
	if o.Format == "json" {
		err = doctor.WriteJSON(stdout, facts.Repository, probes)
	} else {
		err = doctor.WriteText(stdout, facts.Repository, facts.DefaultBranch, probes)
	}
	if err != nil {
		return err
	}
	if !doctor.OK(probes) {
		return &VerdictError{Code: ExitViolation}
	}
	return nil
}

// waitingFor is the sentence doctor says before its first retry: the
// retry lines that follow are for logs, and an unreachable API retries for
// several seconds before the error says what failed.
func waitingFor(apiURL string) string {
	if apiURL == "" {
		apiURL = "https://api.github.com"
	}
	return fmt.Sprintf("pact-action doctor: GitHub's API at %s does not answer; retrying for a few seconds before giving up (the retries are logged below).", apiURL)
}

// firstWarning is a slog.Handler that writes one plain sentence to w
// before the first warning it passes on. It keeps a plain flag: doctor
// makes one request at a time (doctor/gather.go starts no goroutine).
type firstWarning struct {
	slog.Handler
	w      io.Writer
	say    string
	warned *bool
}

func sayFirst(h slog.Handler, w io.Writer, say string) slog.Handler {
	return firstWarning{Handler: h, w: w, say: say, warned: new(bool)}
}

func (f firstWarning) Handle(ctx context.Context, r slog.Record) error {
	if r.Level >= slog.LevelWarn && !*f.warned {
		*f.warned = true
		if _, err := fmt.Fprintln(f.w, f.say); err != nil {
			return err
		}
	}
	return f.Handler.Handle(ctx, r)
}

func (f firstWarning) WithAttrs(attrs []slog.Attr) slog.Handler {
	f.Handler = f.Handler.WithAttrs(attrs)
	return f
}

func (f firstWarning) WithGroup(name string) slog.Handler {
	f.Handler = f.Handler.WithGroup(name)
	return f
}
