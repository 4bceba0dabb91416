package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/pact-action/pact-action/doctor"
	"github.com/pact-action/pact-action/ghapi"
)

// runDoctor reads a repository's settings with a read-only token and says
// whether they make the pact check the gate it should be.
func runDoctor(ctx context.Context, args []string, stdout io.Writer, getenv func(string) string, logger *slog.Logger) error {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	repoFlag := fs.String("repo", getenv("GITHUB_REPOSITORY"), "")
	format := fs.String("format", "text", "")
	checkName := fs.String("check-name", "pact", "")
	pactDir := fs.String("pact-dir", "", "")
	if err := fs.Parse(args); err != nil {
		return usagef("doctor: %v", err)
	}
	if fs.NArg() > 0 {
		return usagef("doctor takes no arguments, got %q", fs.Args())
	}
	if *format != "text" && *format != "json" {
		return usagef("--format must be text or json, not %q", *format)
	}
	owner, repo, ok := strings.Cut(*repoFlag, "/")
	if !ok || owner == "" || repo == "" || strings.Contains(repo, "/") {
		return usagef("doctor needs --repo owner/name (or GITHUB_REPOSITORY), got %q", *repoFlag)
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
	facts, err := doctor.Gather(ctx, gh, doctor.Options{CheckName: *checkName, PactDir: *pactDir})
	if err != nil {
		return fmt.Errorf("doctor could not read %s/%s: %w", owner, repo, err)
	}
	checks := doctor.Judge(facts)
	if *format == "json" {
		err = doctor.WriteJSON(stdout, facts.Repository, checks)
	} else {
		err = doctor.WriteText(stdout, facts.Repository, facts.DefaultBranch, checks)
	}
	if err != nil {
		return err
	}
	if !doctor.OK(checks) {
		return &verdictError{code: exitViolation}
	}
	return nil
}
