package projection

// The STATE.yml renderer this package used before the append-based one of
// render.go: yaml.v3's encoder over mirror structs. Tests hold render.go to
// it byte for byte (render_diff_test.go).

import (
	"bytes"
	"fmt"
	"io"

	"gopkg.in/yaml.v3"
)

type renderedSeat struct {
	ID     string   `yaml:"id"`
	Roles  []string `yaml:"roles,flow"`
	Entry  string   `yaml:"entry"`
	Online bool     `yaml:"online"`
}

type renderedFeature struct {
	ID     string        `yaml:"id"`
	Status FeatureStatus `yaml:"status"`
	Tasks  []string      `yaml:"tasks,flow"`
}

type renderedTask struct {
	ID         string     `yaml:"id"`
	Feature    string     `yaml:"feature"`
	Owner      string     `yaml:"owner"`
	Reviewer   string     `yaml:"reviewer"`
	Branch     string     `yaml:"branch"`
	Spec       string     `yaml:"spec"`
	Status     TaskStatus `yaml:"status"`
	Rounds     int        `yaml:"rounds,omitempty"`
	LastReason string     `yaml:"last_reason,omitempty"`
}

type renderedState struct {
	Project         string            `yaml:"project"`
	ProtocolVersion int               `yaml:"protocol_version"`
	BaseBranch      string            `yaml:"base_branch"`
	Seats           []renderedSeat    `yaml:"seats"`
	Features        []renderedFeature `yaml:"features"`
	Tasks           []renderedTask    `yaml:"tasks"`
}

// referenceRender writes the state as STATE.yml with yaml.v3.
func referenceRender(w io.Writer, s *State) error {
	out := renderedState{Project: s.Project, ProtocolVersion: s.ProtocolVersion, BaseBranch: s.BaseBranch,
		Seats: []renderedSeat{}, Features: []renderedFeature{}, Tasks: []renderedTask{}}
	for _, seat := range s.Seats {
		out.Seats = append(out.Seats, renderedSeat{ID: seat.ID, Roles: nonNil(seat.Roles), Entry: seat.Entry, Online: s.Online[seat.ID]})
	}
	for _, id := range s.FeatureOrder {
		out.Features = append(out.Features, renderedFeature{ID: id, Status: s.FeatureStatus(id), Tasks: s.Features[id].Tasks})
	}
	for _, id := range s.TaskOrder {
		t := s.Tasks[id]
		out.Tasks = append(out.Tasks, renderedTask{ID: t.ID, Feature: t.Feature, Owner: t.Owner, Reviewer: t.Reviewer,
			Branch: t.Branch, Spec: t.Spec, Status: t.Status, Rounds: t.Rounds, LastReason: t.LastReason})
	}
	var buf bytes.Buffer
	buf.WriteString(stateHeader)
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(out); err != nil {
		return fmt.Errorf("render STATE.yml: %w", err)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("render STATE.yml: %w", err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// referenceRenderBytes renders the state into memory with yaml.v3.
func referenceRenderBytes(s *State) []byte {
	var buf bytes.Buffer
	if err := referenceRender(&buf, s); err != nil {
		// yaml.v3 only fails on unsupported Go types, which renderedState has none of.
		panic(err)
	}
	return buf.Bytes()
}
