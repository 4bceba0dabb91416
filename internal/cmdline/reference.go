package cmdline

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// Reference renders a program's command-line reference (docs/cli) as
// Markdown: the program's --help, then each verb's, in the tree's order,
// exactly as they print, so the reference cannot say anything --help does
// not. help runs the program with args and returns what it printed.
func Reference(root *cobra.Command, help func(args ...string) (string, error)) ([]byte, error) {
	name := root.Name()
	type page struct{ title, text string }
	var pages []page
	text, err := help("--help")
	if err != nil {
		return nil, err
	}
	pages = append(pages, page{name, text})
	for _, cmd := range root.Commands() {
		if cmd.Hidden || strings.HasPrefix(cmd.Name(), cobra.ShellCompRequestCmd) {
			continue
		}
		if text, err = help(cmd.Name(), "--help"); err != nil {
			return nil, err
		}
		pages = append(pages, page{name + " " + cmd.Name(), text})
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s command-line reference\n\n", name)
	fmt.Fprintf(&b, "<!-- Generated from %s's own --help by `go generate ./cmd/%s`; a test fails when it is stale. Do not edit. -->\n\n", name, name)
	fmt.Fprintf(&b, "Each section is what `%s --help` or `%s <verb> --help` prints.\n\n", name, name)
	for _, p := range pages {
		fmt.Fprintf(&b, "- [%s](#%s)\n", p.title, strings.ReplaceAll(p.title, " ", "-"))
	}
	for _, p := range pages {
		fmt.Fprintf(&b, "\n## %s\n\n```text\n%s```\n", p.title, p.text)
	}
	return []byte(b.String()), nil
}
