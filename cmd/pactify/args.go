package main

import "strings"

// flagKind says how a verb's --flag takes its value.
type flagKind int

const (
	flagString flagKind = iota
	flagMulti
	flagBool
)

// parsedArgs holds a verb's positional arguments and flags. Flags and
// positionals may be interleaved, as spec §7.1 writes them (`assign T1
// --feature F`).
type parsedArgs struct {
	positional []string
	values     map[string][]string
	bools      map[string]bool
}

func (p parsedArgs) get(name string) string {
	if v := p.values[name]; len(v) > 0 {
		return v[len(v)-1]
	}
	return ""
}

func (p parsedArgs) has(name string) bool { return len(p.values[name]) > 0 }

func parseArgs(verb string, args []string, known map[string]flagKind) (parsedArgs, error) {
	p := parsedArgs{values: map[string][]string{}, bools: map[string]bool{}}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			p.positional = append(p.positional, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			p.positional = append(p.positional, a)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		kind, ok := known[name]
		if !ok {
			return p, usagef("%s does not take the flag --%s", verb, name)
		}
		if kind == flagBool {
			if hasValue {
				return p, usagef("--%s takes no value", name)
			}
			p.bools[name] = true
			continue
		}
		if !hasValue {
			if i+1 >= len(args) {
				return p, usagef("--%s needs a value", name)
			}
			i++
			value = args[i]
		}
		if kind == flagString && p.has(name) {
			return p, usagef("--%s is given twice", name)
		}
		p.values[name] = append(p.values[name], value)
	}
	return p, nil
}
