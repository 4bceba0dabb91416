package projection_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pact-action/pact-action/internal/testkit/schematest"
	"github.com/pact-action/pact-action/projection"
)

// TestConstructorsRoundTrip: for every event type, what a constructor
// builds from random inputs (odd strings included: quotes, backslashes,
// control characters, HTML, line separators, astral runes, invalid UTF-8)
// encodes to a line that the decoder reads back as the same event, and that
// event.schema.json accepts. Writer and reader agree on every field name,
// on optional fields and on escaping.
func TestConstructorsRoundTrip(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(18, 2))
	for i := range 3000 {
		g := gen{r}
		build := constructors[i%len(constructors)]
		d, want := build(g)
		d.EventID = fmt.Sprintf("%032x", r.Uint64())
		d.TS = time.Unix(r.Int64N(7e9), r.Int64N(1e9)).UTC()
		line, err := projection.Encode(d)
		if err != nil {
			t.Fatalf("%s: encode %+v: %v", d.Type, d, err)
		}
		log, _ := projection.ReadEvents(line)
		if len(log.Events) != 1 || len(log.Malformed) != 0 {
			t.Fatalf("%s: line %s reads as %d events, malformed %v", d.Type, line, len(log.Events), log.Malformed)
		}
		ev := log.Events[0]
		got := ev
		got.Line, got.TSRaw = 0, ""
		exp := projection.Event{EventID: d.EventID, TS: d.TS, AgentID: d.AgentID, Role: projection.RoleFor(d.Type), Type: d.Type,
			TaskID: asJSON(d.TaskID), Feature: asJSON(d.Feature), Payload: want}
		if !sameEvent(got, exp) {
			t.Fatalf("%s: the line\n%s\nreads back as\n%+v\nwant\n%+v", d.Type, line, got, exp)
		}
		if ev.TSRaw != projection.FormatTS(d.TS) {
			t.Fatalf("%s: ts reads back as %q, want %q", d.Type, ev.TSRaw, projection.FormatTS(d.TS))
		}
		if err := schematest.ValidateJSON(schematest.Event(), line); err != nil {
			t.Fatalf("%s: the line\n%s\nfails event.schema.json: %v", d.Type, line, err)
		}
	}
}

// constructors build one event of each type from random inputs, with the
// payload the decoder must read back.
var constructors = []func(g gen) (projection.Draft, projection.Payload){
	func(g gen) (projection.Draft, projection.Payload) {
		var seats []projection.Seat
		for range g.r.IntN(4) {
			seats = append(seats, projection.Seat{ID: g.slug(), Roles: g.strings(), Entry: g.str()})
		}
		project, base := g.str(), g.str()
		want := projection.Payload{Project: asJSON(project), ProtocolVersion: projection.SupportedProtocolVersion, BaseBranch: asJSON(base)}
		for _, s := range seats {
			want.Seats = append(want.Seats, projection.Seat{ID: s.ID, Roles: asJSONs(s.Roles), Entry: asJSON(s.Entry)})
		}
		return projection.NewInit(g.slug(), project, base, seats), want
	},
	func(g gen) (projection.Draft, projection.Payload) {
		p := projection.AssignPayload{Owner: g.str(), Reviewer: g.str(), Branch: g.str(), Spec: g.str()}
		want := projection.Payload{Owner: asJSON(p.Owner), Reviewer: asJSON(p.Reviewer), Branch: asJSON(p.Branch), Spec: asJSON(p.Spec)}
		return projection.NewAssign(g.slug(), g.nonEmpty(), g.nonEmpty(), p), want
	},
	func(g gen) (projection.Draft, projection.Payload) {
		roles := g.strings()
		return projection.NewJoin(g.slug(), roles), projection.Payload{Roles: asJSONs(roles)}
	},
	func(g gen) (projection.Draft, projection.Payload) {
		evidence := g.str()
		return projection.NewCheckpoint(g.slug(), g.nonEmpty(), g.str(), evidence), projection.Payload{Evidence: asJSON(evidence)}
	},
	func(g gen) (projection.Draft, projection.Payload) {
		p := projection.AcceptPayload{Commit: g.maybe(), GitHub: g.gitHub()}
		return projection.NewAccept(g.slug(), g.nonEmpty(), g.str(), p), projection.Payload{Commit: asJSON(p.Commit), GitHub: asJSONRef(p.GitHub)}
	},
	func(g gen) (projection.Draft, projection.Payload) {
		p := projection.ChangesRequestedPayload{Reason: g.str(), Commit: g.maybe(), GitHub: g.gitHub()}
		return projection.NewChangesRequested(g.slug(), g.nonEmpty(), g.str(), p),
			projection.Payload{Reason: asJSON(p.Reason), Commit: asJSON(p.Commit), GitHub: asJSONRef(p.GitHub)}
	},
	func(g gen) (projection.Draft, projection.Payload) {
		return projection.NewMerge(g.slug(), g.nonEmpty()), projection.Payload{}
	},
}

type gen struct{ r *rand.Rand }

// pieces are what strings are made of: plain text, and everything JSON
// escapes or that a careless writer would mangle.
var pieces = []string{"a", "T1", "feat/x", " ", "-", `"`, `\`, "/", "<", ">", "&", "'", "\x00", "\n", "\r", "\t", "\x1f", "\x7f",
	"\u2028", "\u2029", "é", "ü", "🚀", "\ufeff", "\ufffd", "\xff", "\xc3", "\xed\xa0\x80", "\\u0041", "null", "{}"}

func (g gen) str() string {
	var b strings.Builder
	for range g.r.IntN(8) {
		b.WriteString(pieces[g.r.IntN(len(pieces))])
	}
	return b.String()
}

func (g gen) nonEmpty() string { return "x" + g.str() }

func (g gen) maybe() string {
	if g.r.IntN(3) == 0 {
		return ""
	}
	return g.str()
}

func (g gen) strings() []string {
	if g.r.IntN(5) == 0 {
		return nil // written as [], never null
	}
	out := []string{}
	for range g.r.IntN(4) {
		out = append(out, g.str())
	}
	return out
}

func (g gen) slug() string {
	const first, rest = "abcdefghijklmnopqrstuvwxyz0123456789", "abcdefghijklmnopqrstuvwxyz0123456789-"
	b := []byte{first[g.r.IntN(len(first))]}
	for range g.r.IntN(12) {
		b = append(b, rest[g.r.IntN(len(rest))])
	}
	return string(b)
}

func (g gen) gitHub() *projection.GitHubRef {
	if g.r.IntN(3) == 0 {
		return nil
	}
	ref := &projection.GitHubRef{URL: g.str(), Login: g.str(), HeadSHA: g.str()}
	switch g.r.IntN(3) {
	case 0:
		ref.ReviewID = int64(g.r.Uint64())
	case 1:
		ref.CommentID = int64(g.r.Uint64())
	}
	return ref
}

// asJSON is s as JSON carries it: every byte that is not part of valid
// UTF-8 becomes U+FFFD (encoding/json's rule, and []rune's).
func asJSON(s string) string { return string([]rune(s)) }

func asJSONs(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = asJSON(v)
	}
	return out
}

func asJSONRef(g *projection.GitHubRef) *projection.GitHubRef {
	if g == nil {
		return nil
	}
	c := *g
	c.URL, c.Login, c.HeadSHA = asJSON(c.URL), asJSON(c.Login), asJSON(c.HeadSHA)
	return &c
}

// sameEvent compares the fields a reader sees (and says neither has a
// problem), an empty list and no list being the same.
func sameEvent(a, b projection.Event) bool {
	norm := func(e *projection.Event) {
		if len(e.Payload.Roles) == 0 {
			e.Payload.Roles = nil
		}
		if len(e.Payload.Seats) == 0 {
			e.Payload.Seats = nil
		}
		for i := range e.Payload.Seats {
			if len(e.Payload.Seats[i].Roles) == 0 {
				e.Payload.Seats[i].Roles = nil
			}
		}
	}
	norm(&a)
	norm(&b)
	return a.EventID == b.EventID && a.TS.Equal(b.TS) && a.AgentID == b.AgentID && a.Role == b.Role && a.Type == b.Type &&
		a.TaskID == b.TaskID && a.Feature == b.Feature && a.Problem == nil && b.Problem == nil && reflect.DeepEqual(a.Payload, b.Payload)
}
