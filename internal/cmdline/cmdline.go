// Package cmdline owns the command-line conventions pactify and pact-action
// share, on top of cobra: how a verb declares its flags (a String given
// once, a Multi repeatable in order, a Bool switch), how they read back
// (Args), how a command line that cannot run is reported (a UsageError
// naming the flag as typed, which both binaries map to exit code 2),
// -h/--help on any verb, "did you mean" for verbs and flags, flags that
// exclude each other, and Execute, which runs a command tree with all of
// that.
package cmdline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Kind says how a --flag takes its value.
type Kind int

// Flag kinds.
const (
	String Kind = iota // one value; giving it twice is an error
	Multi              // repeatable; values keep their order
	Bool               // no value
)

// Flags names the flags a verb takes.
type Flags map[string]Kind

// Args is a parsed command line: positional arguments and flag values.
type Args struct {
	Positional []string
	Values     map[string][]string
	Bools      map[string]bool
}

// Get is a flag's value ("" when absent); for a repeated flag, the last.
func (a Args) Get(name string) string {
	if v := a.Values[name]; len(v) > 0 {
		return v[len(v)-1]
	}
	return ""
}

// Has reports whether the flag was given, even with an empty value.
func (a Args) Has(name string) bool { return len(a.Values[name]) > 0 }

// UsageError is a command line that cannot be run as given (exit code 2).
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// Usagef builds a UsageError.
func Usagef(format string, args ...any) error {
	return &UsageError{fmt.Sprintf(format, args...)}
}

// values is a String or Multi flag: every value given, in order. A String
// given twice is refused when the command runs (Parsed), not while pflag
// parses, since cobra's completion parses the same flags more than once.
type values struct {
	list []string
	kind string // pflag's type name, shown by nothing of ours
}

func (v *values) Set(s string) error { v.list = append(v.list, s); return nil }
func (v *values) String() string {
	if len(v.list) == 0 {
		return ""
	}
	return v.list[len(v.list)-1]
}
func (v *values) Type() string { return v.kind }

// Define declares flags on cmd with their one-line descriptions
// (usage[name], which completion shows).
func Define(cmd *cobra.Command, flags Flags, usage map[string]string) {
	define(cmd.Flags(), flags, usage)
}

// Global declares a String flag of root that every verb takes, before or
// after the verb's name (a persistent flag, as gh's --repo). A verb that
// has no use for it refuses it with Unused.
func Global(root *cobra.Command, name, usage string) {
	define(root.PersistentFlags(), Flags{name: String}, map[string]string{name: usage})
}

// Unused refuses the global flags names when cmd was given one: the verb
// does not use it.
func Unused(cmd *cobra.Command, names ...string) error {
	for _, n := range names {
		if cmd.Flags().Changed(n) {
			return Usagef("%s does not take the flag --%s", cmd.Name(), n)
		}
	}
	return nil
}

func define(set *pflag.FlagSet, flags Flags, usage map[string]string) {
	for _, name := range sortedNames(flags) {
		switch flags[name] {
		case String:
			set.Var(&values{kind: "string"}, name, usage[name])
		case Multi:
			set.Var(&values{kind: "stringArray"}, name, usage[name])
		case Bool:
			set.Bool(name, false, usage[name])
		}
	}
}

func sortedNames(flags Flags) []string {
	names := make([]string, 0, len(flags))
	for name := range flags {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// Parsed reads back the flags cmd was given, with its positional
// arguments (everything after -- among them).
func Parsed(cmd *cobra.Command, positional []string) (Args, error) {
	p := Args{Values: map[string][]string{}, Bools: map[string]bool{}}
	if len(positional) > 0 {
		p.Positional = positional
	}
	var err error
	cmd.Flags().Visit(func(f *pflag.Flag) {
		switch v := f.Value.(type) {
		case *values:
			if v.kind == "string" && len(v.list) > 1 && err == nil {
				err = Usagef("--%s is given twice", f.Name)
			}
			p.Values[f.Name] = slices.Clone(v.list)
		default:
			if f.Value.Type() == "bool" && f.Name != "help" {
				p.Bools[f.Name] = f.Value.String() == "true"
			}
		}
	})
	return p, err
}

// Exclusive refuses the flags names when more than one of them is given,
// and tells completion not to offer the others once one is there.
func Exclusive(cmd *cobra.Command, names ...string) {
	cmd.MarkFlagsMutuallyExclusive(names...)
	next := cmd.PreRunE
	// PreRunE runs before cobra's own check of the group, so the refusal
	// is a usage error in our words.
	cmd.PreRunE = func(c *cobra.Command, args []string) error {
		var given []string
		for _, n := range names {
			if c.Flags().Changed(n) {
				given = append(given, "--"+n)
			}
		}
		if len(given) > 1 {
			return Usagef("%s cannot be given together; give one of them", strings.Join(given, " and "))
		}
		if next != nil {
			return next(c, args)
		}
		return nil
	}
}

// Root is a binary's root command: it takes --version (printing
// versionLine to stdout) and --help, turns a word that names no verb into
// UnknownVerb, prints its help when called with nothing at all (as gh and
// golangci-lint do), and turns global flags without a verb into a usage
// error saying noVerb. Verbs are added by the caller.
func Root(name, short, versionLine, noVerb string, stdout io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   name,
		Short: short,
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) == 0:
				return nil
			case cmd.Flags().Changed("version"):
				return Usagef("--version takes no arguments")
			}
			return UnknownVerb(cmd, args[0])
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch {
			case cmd.Flags().Changed("version"):
				_, err := io.WriteString(stdout, versionLine)
				return err
			case cmd.Flags().NFlag() == 0:
				cmd.HelpFunc()(cmd, nil)
				return nil
			}
			return Usagef("%s", noVerb)
		},
		CompletionOptions:     cobra.CompletionOptions{DisableDefaultCmd: true},
		DisableFlagsInUseLine: true,
	}
	root.Flags().Bool("version", false, "print the version")
	return root
}

// UnknownVerb is the usage error for a word that names no verb of root,
// with the verbs it is closest to.
func UnknownVerb(root *cobra.Command, word string) error {
	root.SuggestionsMinimumDistance = 2
	return Usagef("unknown verb %q%s", word, didYouMean(root.SuggestionsFor(word), ""))
}

func didYouMean(words []string, prefix string) string {
	if len(words) == 0 {
		return ""
	}
	for i := range words {
		words[i] = prefix + words[i]
	}
	return "; did you mean " + strings.Join(words, " or ") + "?"
}

// Execute runs root on args with the shared conventions and returns what
// the command returned: nil, a *UsageError, or the verb's own error. Help
// goes to stdout through root's help function.
func Execute(ctx context.Context, root *cobra.Command, args []string, stdout, stderr io.Writer) error {
	root.SilenceErrors, root.SilenceUsage = true, true
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(flagError)
	if !completionRequest(args) {
		if err := beforeVerb(root, args); err != nil {
			return err
		}
		var err error
		if args, err = normalize(root, args); err != nil {
			return err
		}
	}
	// cobra reads os.Args when given nil.
	root.SetArgs(append([]string{}, args...))
	_, err := root.ExecuteContextC(ctx)
	return err
}

// beforeVerb judges the words up to the verb, before any flag of the
// verb is parsed, so that a mistyped verb is named as one (not as the
// first flag it does not know, as pflag would: gh does the same) and a
// verb's flag given before the verb is refused, saying where it goes.
// Only the root's own flags (the global ones, --help, --version) may stand
// before the verb, as with git and gh.
func beforeVerb(root *cobra.Command, args []string) error {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return nil
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			if verb, _, err := root.Find([]string{a}); err != nil || verb == root {
				return UnknownVerb(root, a)
			}
			return nil
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := rootFlag(root, name, !strings.HasPrefix(a, "--") && len(name) == 1)
		if f == nil {
			return misplacedFlag(root, name, args[i+1:])
		}
		if f.NoOptDefVal == "" && !hasValue {
			i++ // its value, whatever it looks like
		}
	}
	return nil
}

// rootFlag is the root's own or global flag named name (a shorthand when
// short), nil when the root has none.
func rootFlag(root *cobra.Command, name string, short bool) *pflag.Flag {
	root.InitDefaultHelpFlag()
	for _, set := range []*pflag.FlagSet{root.Flags(), root.PersistentFlags()} {
		if short {
			if f := set.ShorthandLookup(name); f != nil {
				return f
			}
			continue
		}
		if f := set.Lookup(name); f != nil {
			return f
		}
	}
	return nil
}

// misplacedFlag is the usage error for --name before the verb: it names
// the verb that takes it when one follows, and the root's flags close to
// it otherwise.
func misplacedFlag(root *cobra.Command, name string, rest []string) error {
	for _, word := range rest {
		if strings.HasPrefix(word, "-") {
			continue
		}
		verb, _, err := root.Find([]string{word})
		if err != nil || verb == root {
			continue
		}
		if verb.Flags().Lookup(name) != nil {
			return Usagef("--%s is a flag of %s: write it after the verb (%s %s --%s …); only %s may come before the verb", name, verb.Name(), root.Name(), verb.Name(), name, globalNames(root))
		}
		break
	}
	return Usagef("unknown flag --%s%s", name, didYouMean(closeFlags(root, name), "--"))
}

// globalNames lists the flags that may stand before the verb.
func globalNames(root *cobra.Command) string {
	var names []string
	root.PersistentFlags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, "--"+f.Name)
		}
	})
	return strings.Join(append(names, "--help"), ", ") + " and --version"
}

// completionRequest is cobra's hidden verb the completion scripts call.
func completionRequest(args []string) bool {
	return len(args) > 0 && strings.HasPrefix(args[0], cobra.ShellCompRequestCmd)
}

// normalize keeps two things the project's first parser accepted and
// pflag reads otherwise: a long flag with one dash (-format json, as Go's
// flag package takes it) and a switch given a value (--replay=true), which
// is refused rather than read as a boolean.
func normalize(root *cobra.Command, args []string) ([]string, error) {
	cmd, _, err := root.Find(args)
	if err != nil || cmd == nil {
		cmd = root
	}
	cmd.InitDefaultHelpFlag()
	flags := cmd.Flags()
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...), nil
		}
		if len(a) > 2 && a[0] == '-' && a[1] != '-' {
			if name, _, _ := strings.Cut(a[1:], "="); len(name) > 1 && flags.Lookup(name) != nil {
				a = "-" + a
			}
		}
		out = append(out, a)
		name, _, hasValue := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		f := flags.Lookup(name)
		if !strings.HasPrefix(a, "--") || f == nil {
			continue
		}
		switch {
		case f.NoOptDefVal != "" && hasValue:
			return nil, Usagef("--%s takes no value", name)
		case f.NoOptDefVal == "" && !hasValue && i+1 < len(args):
			// The next word is this flag's value, whatever it looks like.
			i++
			out = append(out, args[i])
		}
	}
	return out, nil
}

// flagError turns pflag's errors into usage errors that name the flag as
// it was typed. A -h or --help before the bad flag still asks for help.
func flagError(cmd *cobra.Command, err error) error {
	if h := cmd.Flags().Lookup("help"); h != nil && h.Changed {
		return pflag.ErrHelp
	}
	var (
		usage    *UsageError
		notExist *pflag.NotExistError
		needs    *pflag.ValueRequiredError
		syntax   *pflag.InvalidSyntaxError
		invalid  *pflag.InvalidValueError
	)
	switch {
	case errors.As(err, &usage):
		return usage
	case errors.As(err, &notExist):
		typed := "--" + notExist.GetSpecifiedName()
		if s := notExist.GetSpecifiedShortnames(); s != "" {
			typed = "-" + notExist.GetSpecifiedName()
			if len(s) > 1 {
				typed += " (in -" + s + ")"
			}
		}
		suggest := didYouMean(closeFlags(cmd, notExist.GetSpecifiedName()), "--")
		if !cmd.HasParent() {
			return Usagef("unknown flag %s%s", typed, suggest)
		}
		return Usagef("%s does not take the flag %s%s", cmd.Name(), typed, suggest)
	case errors.As(err, &needs):
		typed := "--" + needs.GetSpecifiedName()
		if needs.GetSpecifiedShortnames() != "" {
			typed = "-" + needs.GetSpecifiedName()
		}
		return Usagef("%s needs a value", typed)
	case errors.As(err, &syntax):
		name, _, _ := strings.Cut(syntax.GetSpecifiedFlag(), "=")
		return Usagef("%s does not take the flag %s", cmd.Name(), name)
	case errors.As(err, &invalid):
		return Usagef("--%s: %v", invalid.GetFlag().Name, errors.Unwrap(invalid))
	}
	return Usagef("%s", err)
}

// closeFlags are cmd's flags within two edits of name, for "did you mean".
func closeFlags(cmd *cobra.Command, name string) []string {
	if len(name) < 2 {
		return nil
	}
	var close []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden && distance(name, f.Name) <= 2 {
			close = append(close, f.Name)
		}
	})
	return close
}

// distance is the Levenshtein distance between a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// Shells are the shells Completion writes a script for.
var Shells = []string{"bash", "zsh", "fish", "powershell"}

// Completion writes root's completion script for shell. The scripts call
// the program back (cobra's hidden __complete verb) for the words, so they
// follow the installed version.
func Completion(root *cobra.Command, shell string, w io.Writer) error {
	switch shell {
	case "bash":
		return root.GenBashCompletionV2(w, true)
	case "zsh":
		return root.GenZshCompletion(w)
	case "fish":
		return root.GenFishCompletion(w, true)
	case "powershell":
		return root.GenPowerShellCompletionWithDesc(w)
	}
	return Usagef("%s completion knows bash, zsh, fish and powershell, not %q", root.Name(), shell)
}
