// Package workflows holds, in tests that run offline inside `go test ./...`,
// what cannot run here: the repository's GitHub workflows and the workflow
// snippets of the documentation (README.md, CONTRIBUTING.md, docs/*.md)
// pass actionlint (used as a library), every
// third-party action is pinned by commit SHA with its version comment, the
// race job covers every package with concurrency, and Dependabot watches
// every kind of pin.
package workflows
