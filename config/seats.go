package config

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/pact-action/pact-action/projection"
)

// SeatsOf returns the seats login may act for, sorted. Logins match
// case-insensitively, as GitHub logins do.
func (c *Config) SeatsOf(login string) []string {
	if c == nil {
		return nil
	}
	var out []string
	for seat, logins := range c.Seats {
		if slices.ContainsFunc(logins, func(l string) bool { return strings.EqualFold(l, login) }) {
			out = append(out, seat)
		}
	}
	sort.Strings(out)
	return out
}

// Holds reports whether login may act for seat.
func (c *Config) Holds(login, seat string) bool {
	if c == nil {
		return false
	}
	return slices.ContainsFunc(c.Seats[seat], func(l string) bool { return strings.EqualFold(l, login) })
}

// reviewRight is what Rule 1 lets an account do with a task: the one
// predicate the bot and the provenance rule both decide by.
type reviewRight int

// Review rights.
const (
	// MayReview: the account holds the task's reviewer seat and not its
	// owner's.
	MayReview reviewRight = iota
	// OwnsTheTask: the account holds the owner's seat, so it may never
	// accept or request changes on the task, even when it also holds the
	// reviewer seat.
	OwnsTheTask
	// NotTheReviewer: the account does not hold the reviewer seat.
	NotTheReviewer
)

// reviewRight says whether login may review (accept, or request changes
// on) a task owned by seat owner and reviewed by seat reviewer.
func (c *Config) ReviewRight(login, owner, reviewer string) reviewRight {
	switch {
	case c.Holds(login, owner):
		return OwnsTheTask
	case !c.Holds(login, reviewer):
		return NotTheReviewer
	}
	return MayReview
}

// TeamsOf returns the teams the check asks for seat's reviews, in file
// order.
func (c *Config) TeamsOf(seat string) []string {
	if c == nil {
		return nil
	}
	return slices.Clone(c.ReviewTeams[seat])
}

// LoginsOf returns the logins mapped to seat, in file order.
func (c *Config) LoginsOf(seat string) []string {
	if c == nil {
		return nil
	}
	return slices.Clone(c.Seats[seat])
}

// RosterProblems compares the seat map with the roster of the init event
// and returns one problem for every seat the file names that the roster
// lacks, sorted by seat.
func (c *Config) RosterProblems(roster []projection.Seat) []string {
	if c == nil {
		return nil
	}
	declared := make([]string, 0, len(roster))
	known := make(map[string]bool, len(roster))
	for _, s := range roster {
		known[s.ID] = true
		declared = append(declared, s.ID)
	}
	list := "none"
	if len(declared) > 0 {
		list = strings.Join(declared, ", ")
	}
	var out []string
	for _, seat := range slices.Sorted(maps.Keys(c.Seats)) {
		if !known[seat] {
			out = append(out, fmt.Sprintf("seat %q is not in the roster of the init event (seats: %s); remove it from seats or correct its name", seat, list))
		}
	}
	for _, seat := range slices.Sorted(maps.Keys(c.ReviewTeams)) {
		if !known[seat] {
			out = append(out, fmt.Sprintf("seat %q of review-teams is not in the roster of the init event (seats: %s); remove it from review-teams or correct its name", seat, list))
		}
	}
	return out
}
