// Package cmdline owns the command-line conventions pactify and pact-action
// share: how a verb's flags are parsed (flags and positionals interleaved,
// --flag value and --flag=value, repeatable flags, -- ends the flags),
// -h/--help on any verb, and the usage error both binaries map to exit
// code 2.
package cmdline

import (
	"errors"
	"fmt"
	"strings"
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

// ErrHelp means -h or --help was given: print the verb's usage and exit 0.
var ErrHelp = errors.New("help requested")

// Parse reads args against the flags a verb takes. -h and --help, anywhere
// a flag may stand, return ErrHelp (a flag's value and anything after --
// are never taken for them).
func Parse(verb string, args []string, known Flags) (Args, error) {
	p := Args{Values: map[string][]string{}, Bools: map[string]bool{}}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			p.Positional = append(p.Positional, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			p.Positional = append(p.Positional, a)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		kind, ok := known[name]
		if !ok && (name == "h" || name == "help") && !hasValue {
			return p, ErrHelp
		}
		if !ok {
			return p, Usagef("%s does not take the flag --%s", verb, name)
		}
		if kind == Bool {
			if hasValue {
				return p, Usagef("--%s takes no value", name)
			}
			p.Bools[name] = true
			continue
		}
		if !hasValue {
			if i+1 >= len(args) {
				return p, Usagef("--%s needs a value", name)
			}
			i++
			value = args[i]
		}
		if kind == String && p.Has(name) {
			return p, Usagef("--%s is given twice", name)
		}
		p.Values[name] = append(p.Values[name], value)
	}
	return p, nil
}
