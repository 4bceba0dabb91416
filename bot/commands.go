package bot

import (
	"strings"
)

// Command verbs of /pact.
const (
	VerbAccept  = "accept"
	VerbChanges = "changes"
	VerbStatus  = "status"
	VerbRecheck = "recheck"
	VerbHelp    = "help"
)

// Command is one /pact line of a comment.
type Command struct {
	Verb   string
	Task   string
	Reason string
	// Problem is set when the line is not a usable command; the reply is
	// then the help text with this sentence first.
	Problem string
}

// ParseCommands finds the /pact commands of a comment body, in order. A
// command starts a line (leading spaces allowed); lines inside fenced code
// blocks and quoted lines are not commands.
func ParseCommands(body string) []Command {
	var out []Command
	inFence := false
	for _, raw := range strings.Split(strings.ReplaceAll(body, "\r\n", "\n"), "\n") {
		line := strings.TrimSpace(raw)
		if strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~") {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		rest, ok := strings.CutPrefix(line, "/pact")
		if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '\t') {
			continue
		}
		out = append(out, parseCommand(strings.Fields(rest)))
	}
	return out
}

func parseCommand(words []string) Command {
	if len(words) == 0 {
		return Command{Verb: VerbHelp}
	}
	verb := strings.ToLower(words[0])
	switch verb {
	case VerbAccept:
		if len(words) != 2 {
			return Command{Verb: VerbHelp, Problem: "`/pact accept` takes exactly one task id."}
		}
		return Command{Verb: verb, Task: words[1]}
	case VerbChanges:
		if len(words) < 3 {
			return Command{Verb: VerbHelp, Problem: "`/pact changes` needs a task id and a reason."}
		}
		return Command{Verb: verb, Task: words[1], Reason: strings.Join(words[2:], " ")}
	case VerbStatus, VerbRecheck, VerbHelp:
		if len(words) != 1 {
			return Command{Verb: VerbHelp, Problem: "`/pact " + verb + "` takes no arguments."}
		}
		return Command{Verb: verb}
	}
	return Command{Verb: VerbHelp, Problem: "`" + truncate(words[0], 40) + "` is not a /pact command."}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// HelpText is the reply to /pact help and to anything /pact does not know.
const HelpText = "**/pact commands** (each at the start of a line):\n\n" +
	"- `/pact accept <task>` — accept a task awaiting review (you must hold its reviewer seat and not its owner seat)\n" +
	"- `/pact changes <task> <reason…>` — request changes on a task awaiting review\n" +
	"- `/pact status` — show the pact's tasks for this pull request\n" +
	"- `/pact recheck` — judge this pull request's head again\n" +
	"- `/pact help` — this text\n\n" +
	"Approving the pull request accepts every task on this branch that awaits your review; requesting changes does the opposite. " +
	"Seats are mapped to GitHub accounts in `.github/pact.yml` on the base branch."
