package cmdline

import (
	"errors"
	"strings"
)

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
