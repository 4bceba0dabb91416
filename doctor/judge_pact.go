package doctor

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pact-action/pact-action/config"
	"github.com/pact-action/pact-action/internal/prose"
	"github.com/pact-action/pact-action/pactfile"
	"github.com/pact-action/pact-action/projection"
)

func judgePact(f Facts) []Probe {
	var out []Probe
	branch := f.DefaultBranch
	dir := f.PactDir
	if dir == "" {
		dir = pactfile.DefaultDir
	}
	rosterProbe := Probe{ID: "pact.roster"}
	switch {
	case f.LogUnknown != nil:
		rosterProbe.Status, rosterProbe.Title = StatusUnknown, "cannot read the pact's roster on "+branch
		rosterProbe.Detail, rosterProbe.Fix = f.LogUnknown.Reason, permissionFix(f.LogUnknown)
	case f.LogProblem != "":
		rosterProbe.Status, rosterProbe.Title = StatusFail, "no pact roster on "+branch
		rosterProbe.Detail = f.LogProblem
		rosterProbe.Fix = fmt.Sprintf("run `pactify init` on a branch and merge it into %s (doctor reads %s/log.jsonl)", branch, dir)
	default:
		rosterProbe.Status = StatusPass
		rosterProbe.Title = fmt.Sprintf("the pact on %s declares %s: %s", branch, prose.Plural(len(f.Roster), "seat"), strings.Join(f.Roster, ", "))
	}
	out = append(out, rosterProbe, judgeLineEndings(f, dir))

	cfgProbe := Probe{ID: "config.file"}
	cfg := f.Config
	switch {
	case f.ConfigUnknown != nil:
		cfgProbe.Status, cfgProbe.Title = StatusUnknown, "cannot read "+pactfile.ConfigPath+" on "+branch
		cfgProbe.Detail, cfgProbe.Fix = f.ConfigUnknown.Reason, permissionFix(f.ConfigUnknown)
		return append(out, cfgProbe)
	case f.ConfigError != "":
		cfgProbe.Status, cfgProbe.Title = StatusFail, pactfile.ConfigPath+" on "+branch+" cannot be used"
		cfgProbe.Detail = f.ConfigError
		cfgProbe.Fix = "fix " + pactfile.ConfigPath + " on " + branch + ": only the keys seats, provenance, unmapped-branches, review-requests and review-teams, seats of the roster, GitHub logins"
		return append(out, cfgProbe)
	case f.ConfigMissing || cfg == nil:
		cfgProbe.Status, cfgProbe.Title = StatusFail, "no "+pactfile.ConfigPath+" on "+branch
		cfgProbe.Detail = "no GitHub account holds a seat: the bot cannot tell which seat a reviewer holds, and provenance can verify nothing; " + configFromDefault(branch)
		cfgProbe.Fix = "add " + pactfile.ConfigPath + " on " + branch + ":\n" + configSnippet(f.Roster)
		out = append(out, cfgProbe)
		out = append(out, judgeProvenance(f, config.Default()), judgeUnmapped(f, config.Default()))
		return append(out, judgeReviewRequests(f, config.Default())...)
	}
	var roster []projection.Seat
	for _, s := range f.Roster {
		roster = append(roster, projection.Seat{ID: s})
	}
	if problems := cfg.RosterProblems(roster); len(f.Roster) > 0 && len(problems) > 0 {
		cfgProbe.Status, cfgProbe.Title = StatusFail, pactfile.ConfigPath+" names seats the pact does not have"
		cfgProbe.Detail = strings.Join(problems, "; ")
		cfgProbe.Fix = "in " + pactfile.ConfigPath + " on " + branch + ", keep only the seats " + strings.Join(f.Roster, ", ")
	} else {
		cfgProbe.Status, cfgProbe.Title = StatusPass, pactfile.ConfigPath+" on "+branch+" is valid"
		cfgProbe.Detail = configFromDefault(branch)
	}
	out = append(out, cfgProbe)

	for _, seat := range f.Roster {
		c := Probe{ID: "seat." + seat}
		if logins := cfg.LoginsOf(seat); len(logins) > 0 {
			c.Status, c.Title = StatusPass, fmt.Sprintf("seat %s is held by %s", seat, strings.Join(logins, ", "))
		} else {
			c.Status, c.Title = StatusFail, fmt.Sprintf("seat %s is mapped to no GitHub account", seat)
			c.Detail = "nobody can act for it through the bot, and its events can never be verified"
			c.Fix = fmt.Sprintf("in %s on %s:\nseats:\n  %s: [<github-login>]", pactfile.ConfigPath, branch, seat)
		}
		out = append(out, c)
	}
	out = append(out, judgeLogins(f, cfg)...)
	out = append(out, judgeProvenance(f, cfg), judgeUnmapped(f, cfg))
	return append(out, judgeReviewRequests(f, cfg)...)
}

// configFromDefault says where the check and the bot read the
// configuration (docs/semantics.md §5), so that nobody fixes it elsewhere.
func configFromDefault(branch string) string {
	return fmt.Sprintf("the check and the bot read the seats and policies from %s on %s, the default branch, whatever a pull request's base: the file on any other branch grants nothing", pactfile.ConfigPath, branch)
}

// judgeLogins judges every login of the seat map once, in roster order.
func judgeLogins(f Facts, cfg *config.Config) []Probe {
	var out []Probe
	seen := map[string]bool{}
	seats := append([]string(nil), f.Roster...)
	for _, s := range sortedSeats(cfg) {
		seats = appendUnique(seats, s)
	}
	for _, seat := range seats {
		for _, login := range cfg.LoginsOf(seat) {
			key := strings.ToLower(login)
			if seen[key] {
				continue
			}
			seen[key] = true
			held := strings.Join(cfg.SeatsOf(login), ", ")
			a := f.Accounts[key]
			c := Probe{ID: "login." + login}
			switch {
			case a.Unreadable != nil:
				c.Status, c.Title = StatusUnknown, fmt.Sprintf("cannot tell whether %s (seat %s) can write", login, held)
				c.Detail, c.Fix = a.Unreadable.Reason, permissionFix(a.Unreadable)
			case !a.Exists:
				c.Status, c.Title = StatusFail, fmt.Sprintf("%s (seat %s) is not a GitHub account", login, held)
				c.Fix = fmt.Sprintf("correct the login under seats.%s in %s on %s", seat, pactfile.ConfigPath, f.DefaultBranch)
			case strings.HasSuffix(login, "[bot]"):
				c.Status, c.Title = StatusUnknown, fmt.Sprintf("cannot tell whether the app %s (seat %s) can write", login, held)
				c.Detail = "GitHub reports no repository permission for an app's account"
				c.Fix = fmt.Sprintf("make sure the app is installed on %s with Contents: read and write", f.Repository)
			case canWrite(a.Permission):
				c.Status, c.Title = StatusPass, fmt.Sprintf("%s (seat %s) can write", login, held)
				c.Detail = "permission: " + a.Permission
			default:
				c.Status, c.Title = StatusFail, fmt.Sprintf("%s (seat %s) cannot write to %s", login, held, f.Repository)
				c.Detail = fmt.Sprintf("permission: %s; the bot refuses its /pact accept and changes, and it cannot push the seat's events", a.Permission)
				c.Fix = fmt.Sprintf("Settings → Collaborators and teams → Add people → %s, role Write (or a team with Write)", login)
			}
			out = append(out, c)
		}
	}
	return out
}

func sortedSeats(cfg *config.Config) []string {
	var out []string
	for s := range cfg.Seats {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

func canWrite(permission string) bool {
	switch permission {
	case "admin", "maintain", "write":
		return true
	}
	return false
}

func configSnippet(roster []string) string {
	var b strings.Builder
	b.WriteString("seats:\n")
	if len(roster) == 0 {
		b.WriteString("  <seat>: [<github-login>]\n")
	}
	for _, s := range roster {
		fmt.Fprintf(&b, "  %s: [<github-login>]\n", s)
	}
	b.WriteString("provenance:\n  mode: require")
	return b.String()
}
