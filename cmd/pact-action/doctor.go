package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/pact-action/pact-action/doctor"
	"github.com/pact-action/pact-action/ghapi"
	"github.com/pact-action/pact-action/internal/cmdline"
)

// doctorFlags are the flags of `pact-action doctor` (and the global
// --pact-dir).
var doctorFlags = cmdline.Flags{"repo": cmdline.String, "format": cmdline.String, "check-name": cmdline.String}

// runDoctor reads a repository's settings with a read-only token and says
// whether they make the pact check the gate it should be.
func runDoctor(ctx context.Context, p cmdline.Args, stdout, stderr io.Writer, getenv func(string) string, logger *slog.Logger) error {
	if len(p.Positional) > 0 {
		return usagef("doctor takes no arguments, got %q", p.Positional)
	}
	repoFlag, format, checkName, pactDir := getenv("GITHUB_REPOSITORY"), "text", "pact", p.Get("pact-dir")
	if p.Has("repo") {
		repoFlag = p.Get("repo")
	}
	if p.Has("format") {
		format = p.Get("format")
	}
	if p.Has("check-name") {
		checkName = p.Get("check-name")
	}
	if format != "text" && format != "json" {
		return usagef("--format must be text or json, not %q", format)
	}
	owner, repo, ok := strings.Cut(repoFlag, "/")
	if !ok || owner == "" || repo == "" || strings.Contains(repo, "/") {
		return usagef("doctor needs --repo owner/name (or GITHUB_REPOSITORY), got %q", repoFlag)
	}
	token := getenv("GITHUB_TOKEN")
	if token == "" {
		token = getenv("GH_TOKEN")
	}
	if token == "" {
		return usagef("doctor needs a token in GITHUB_TOKEN or GH_TOKEN: a fine-grained token with read access to Metadata, Contents, Actions and Administration is enough")
	}
	apiURL := getenv("GITHUB_API_URL")
	gh, err := ghapi.New(ctx, ghapi.Options{Token: token, APIURL: apiURL, GraphQLURL: getenv("GITHUB_GRAPHQL_URL"),
		Owner: owner, Repo: repo, Logger: slog.New(sayFirst(logger.Handler(), stderr, waitingFor(apiURL)))})
	if err != nil {
		return err
	}
	facts, err := doctor.Gather(ctx, gh, doctor.Options{CheckName: checkName, PactDir: pactDir})
	if err != nil {
		return fmt.Errorf("doctor could not read %s/%s: %w", owner, repo, err)
	}
	probes := doctor.Judge(facts)
	if format == "json" {
		err = doctor.WriteJSON(stdout, facts.Repository, probes)
	} else {
		err = doctor.WriteText(stdout, facts.Repository, facts.DefaultBranch, probes)
	}
	if err != nil {
		return err
	}
	if !doctor.OK(probes) {
		return &verdictError{code: exitViolation}
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
