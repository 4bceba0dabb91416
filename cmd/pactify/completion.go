package main

import (
	"github.com/pact-action/pact-action/internal/cmdline"
)

const completionHelp = `
  bash:        source <(pactify completion bash)      (or save it in /etc/bash_completion.d/;
               it needs the bash-completion package)
  zsh:         source <(pactify completion zsh)       (or save it as _pactify on $fpath)
  fish:        pactify completion fish | source       (or save it in ~/.config/fish/completions/)
  powershell:  pactify completion powershell | Out-String | Invoke-Expression
               (or add that line to $PROFILE)
The scripts ask pactify itself for the words (verbs, flags, --format's values,
directories for --pact-dir), so they follow the pactify on your PATH.
`

// cmdCompletion prints the completion script of a shell.
func (c *cli) cmdCompletion(p cmdline.Args) error {
	spec, _ := lookupVerb("completion")
	if len(p.Positional) != 1 {
		return spec.usageError()
	}
	return cmdline.Completion(c.root, p.Positional[0], c.stdout)
}
