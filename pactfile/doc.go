// Package pactfile owns the byte formats of the files in a .pact/ directory:
// how each one is written and read, so that every writer and every checker
// use the same code and agree to the byte.
//
// It holds the layout (layout.go: the directory, the names of its files and
// where .github/pact.yml lives), the task file (task.go: tasks/<id>.md, its
// front matter and the body a new file starts with) and YAMLWriter
// (yaml.go), the block YAML that STATE.yml and the front matter are written
// in, byte for byte what gopkg.in/yaml.v3's encoder writes. It is pure: no file system, no clock, and none of the
// project's other packages.
package pactfile
