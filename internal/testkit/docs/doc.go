// Package docs holds the documentation to the repository in tests that run
// inside `go test ./...`: every relative link of README.md, CONTRIBUTING.md,
// SECURITY.md, CHANGELOG.md and docs/*.md resolves (its #anchor included),
// and every repository path they name exists.
package docs
