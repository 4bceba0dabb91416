package checks

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
)

// Report is the JSON form of a verdict: `pactify validate --format json`.
type Report struct {
	Valid    bool      `json:"valid"`
	Errors   int       `json:"errors"`
	Warnings int       `json:"warnings"`
	Pending  int       `json:"pending"`
	Findings []Finding `json:"findings"`
}

// NewReport builds the JSON report; valid means no error finding.
func NewReport(findings []Finding) Report {
	c := Count(findings)
	if findings == nil {
		findings = []Finding{}
	}
	return Report{Valid: c.Errors == 0, Errors: c.Errors, Warnings: c.Warnings, Pending: c.Pending, Findings: findings}
}

// WriteJSON writes the report as indented JSON.
func WriteJSON(w io.Writer, findings []Finding) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(NewReport(findings))
}

// WriteText writes findings grouped by file, one `path:line: code: message`
// line each with its severity and hint below, and a verdict line last.
func WriteText(w io.Writer, findings []Finding) error {
	// Streamed: a large log can have hundreds of thousands of findings, and
	// building the report as one string doubled validate's peak memory.
	b := bufio.NewWriterSize(w, 64<<10)
	lastPath := ""
	for i, f := range findings {
		if i > 0 && f.Path != lastPath {
			b.WriteString("\n")
		}
		lastPath = f.Path
		loc := f.Path
		if f.Line > 0 {
			loc = f.Path + ":" + strconv.Itoa(f.Line)
		}
		fmt.Fprintf(b, "%s: %s: %s\n", loc, f.Code, oneLine(f.Message))
		fmt.Fprintf(b, "    %s; hint: %s\n", f.Severity, f.Hint)
	}
	if len(findings) > 0 {
		b.WriteString("\n")
	}
	b.WriteString(Verdict(findings) + "\n")
	return b.Flush()
}

// Verdict is the one-line outcome: valid or invalid, with the counts.
func Verdict(findings []Finding) string {
	c := Count(findings)
	word := "valid"
	if c.Errors > 0 {
		word = "invalid"
	}
	s := fmt.Sprintf("%s: %s, %s", word, plural(c.Errors, "error"), plural(c.Warnings, "warning"))
	if c.Pending > 0 {
		s += ", " + plural(c.Pending, "pending")
	}
	return s
}

func plural(n int, word string) string {
	if n == 1 || word == "pending" {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// oneLine folds newlines so a message from the log cannot forge extra lines.
func oneLine(s string) string {
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifRule struct {
	ID                   string      `json:"id"`
	Name                 string      `json:"name"`
	ShortDescription     sarifText   `json:"shortDescription"`
	Help                 sarifText   `json:"help"`
	DefaultConfiguration sarifConfig `json:"defaultConfiguration"`
}

type sarifConfig struct {
	Level string `json:"level"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	RuleIndex int             `json:"ruleIndex"`
	Level     string          `json:"level"`
	Message   sarifText       `json:"message"`
	Locations []sarifLocation `json:"locations"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

func sarifLevel(s Severity) string {
	switch s {
	case SeverityError:
		return "error"
	case SeverityWarning:
		return "warning"
	}
	return "note"
}

// WriteSARIF writes findings as SARIF 2.1.0 with one rule per stable code,
// so GitHub code scanning can show them.
func WriteSARIF(w io.Writer, toolName string, findings []Finding) error {
	driver := sarifDriver{Name: toolName, InformationURI: "https://github.com/pact-action/pact-action#finding-codes"}
	index := map[string]int{}
	for i, c := range Table {
		index[string(c.Code)] = i
		driver.Rules = append(driver.Rules, sarifRule{ID: string(c.Code), Name: ruleName(string(c.Code)),
			ShortDescription: sarifText{c.Title}, Help: sarifText{c.Hint}, DefaultConfiguration: sarifConfig{sarifLevel(c.Severity)}})
	}
	results := []sarifResult{}
	for _, f := range findings {
		idx, ok := index[string(f.Code)]
		if !ok {
			idx = len(driver.Rules)
			index[string(f.Code)] = idx
			driver.Rules = append(driver.Rules, sarifRule{ID: string(f.Code), Name: ruleName(string(f.Code)), ShortDescription: sarifText{string(f.Code)},
				Help: sarifText{f.Hint}, DefaultConfiguration: sarifConfig{sarifLevel(f.Severity)}})
		}
		loc := sarifPhysical{ArtifactLocation: sarifArtifact{URI: sarifURI(f.Path)}}
		if f.Line > 0 {
			loc.Region = &sarifRegion{StartLine: f.Line}
		}
		results = append(results, sarifResult{RuleID: string(f.Code), RuleIndex: idx, Level: sarifLevel(f.Severity),
			Message:   sarifText{oneLine(f.Message) + " Hint: " + f.Hint},
			Locations: []sarifLocation{{PhysicalLocation: loc}}})
	}
	doc := sarifLog{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0",
		Runs: []sarifRun{{Tool: sarifTool{Driver: driver}, Results: results}}}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// sarifURI turns a relative slash-separated path into the URI reference
// SARIF requires (§3.4.3): task ids may hold spaces, '#', '?', '%' or
// non-ASCII letters, which a URI must percent-encode.
func sarifURI(p string) string { return (&url.URL{Path: p}).String() }

// ruleName turns a code such as rule1.self_accept into Rule1SelfAccept, the
// PascalCase SARIF recommends for rule names.
func ruleName(code string) string {
	var b strings.Builder
	up := true
	for _, r := range code {
		if r == '.' || r == '_' {
			up = true
			continue
		}
		if up {
			b.WriteString(strings.ToUpper(string(r)))
			up = false
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}
