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
func runDoctor(ctx context.Context, p cmdline.Args, stdout io.Writer, getenv func(string) string, logger *slog.Logger) error {
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
	gh, err := ghapi.New(ctx, ghapi.Options{Token: token, APIURL: getenv("GITHUB_API_URL"), GraphQLURL: getenv("GITHUB_GRAPHQL_URL"),
		Owner: owner, Repo: repo, Logger: logger})
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
