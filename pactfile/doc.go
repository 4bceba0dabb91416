// Package pactfile owns the byte formats of the files in a .pact/ directory:
// how each one is written and read, so that every writer and every checker
// use the same code and agree to the byte.
//
// It holds the layout (layout.go: the directory, the names of its files and
// where .github/pact.yml lives), what a line of log.jsonl is (lines.go), the
// task file (task.go: tasks/<id>.md, its front matter and the body a new
// file starts with), the managed block init owns in PROJECT.md and the
// entry files (block.go) and the charter in PROJECT.md's block (project.go),
// the .gitattributes line that keeps git from converting the pact's line
// endings (gitattributes.go). The front matter is written through
// internal/yamlemit, byte for byte what gopkg.in/yaml.v3's encoder writes.
// Each format has its Format (or Append) and its Parse here, so a file
// reads back as it was written. It is pure: no file system, no clock, and
// none of the project's other packages but that fenced emitter.
package pactfile
