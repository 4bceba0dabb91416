// Package docs holds the documentation to the repository in tests that run
// inside `go test ./...`: every relative link of README.md, CONTRIBUTING.md,
// SECURITY.md, CHANGELOG.md and docs/*.md resolves (its #anchor included),
// every repository path they name exists, and a Go comment or a JSON
// Schema's description cites only Markdown files the repository has and
// sections docs/semantics.md has, never the shared specification the code
// was written from (citations_test.go).
package docs
