package report

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"

	"github.com/pact-action/pact-action/checks"
	"github.com/pact-action/pact-action/internal/prose"
)

// SARIF 2.1.0 for code scanning: `pactify validate --format sarif` and
// `pact-action check --local --format sarif`. The rules are the code table
// (checks.Table), so every finding code is described where it is judged.

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
	Version        string      `json:"version"`
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
	FullDescription      sarifText   `json:"fullDescription"`
	Help                 sarifText   `json:"help"`
	HelpURI              string      `json:"helpUri"`
	DefaultConfiguration sarifConfig `json:"defaultConfiguration"`
}

type sarifConfig struct {
	Level string `json:"level"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifText         `json:"message"`
	Locations           []sarifLocation   `json:"locations"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           sarifRegion   `json:"region"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

// SARIFTool names the tool in a SARIF log: GitHub code scanning groups
// alerts by name and tells a tool upgrade from a code change by version.
type SARIFTool struct {
	Name    string
	Version string
}

// findingCodesURI is the page that documents every code (docs/codes.md).
const findingCodesURI = "https://github.com/pact-action/pact-action/blob/main/docs/codes.md"

// WriteSARIF writes findings as SARIF 2.1.0 with one rule per stable code,
// holding what GitHub code scanning requires of an upload: every rule has a
// short and a full description and help, the driver a version, and every
// result a region (line 1 for a finding without a line, as annotations do)
// and a fingerprint.
func WriteSARIF(w io.Writer, tool SARIFTool, findings []checks.Finding) error {
	driver := sarifDriver{Name: tool.Name, Version: tool.Version, InformationURI: findingCodesURI}
	index := map[string]int{}
	for i, c := range checks.Table {
		index[string(c.Code)] = i
		driver.Rules = append(driver.Rules, newSARIFRule(c))
	}
	results := []sarifResult{}
	for _, f := range findings {
		idx, ok := index[string(f.Code)]
		if !ok { // a code outside the table (a newer engine's): describe it from the finding
			idx = len(driver.Rules)
			index[string(f.Code)] = idx
			driver.Rules = append(driver.Rules, newSARIFRule(checks.CodeInfo{Code: f.Code, Severity: f.Severity, Title: string(f.Code), Hint: f.Hint}))
		}
		loc := sarifPhysical{ArtifactLocation: sarifArtifact{URI: sarifURI(f.Path)}, Region: sarifRegion{StartLine: f.AnnotatedLine()}}
		results = append(results, sarifResult{RuleID: string(f.Code), RuleIndex: idx, Level: words(f.Severity).sarif,
			Message:             sarifText{PlainText(prose.OneLine(f.Message) + " Hint: " + f.Hint)},
			Locations:           []sarifLocation{{PhysicalLocation: loc}},
			PartialFingerprints: map[string]string{"primaryLocationLineHash": fingerprint(f)}})
	}
	doc := sarifLog{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0",
		Runs: []sarifRun{{Tool: sarifTool{Driver: driver}, Results: results}}}
	return writeIndented(w, doc)
}

// newSARIFRule describes one code: the title is the short description; the
// full description adds what the severity blocks.
func newSARIFRule(c checks.CodeInfo) sarifRule {
	title := c.Title
	if title == "" {
		title = string(c.Code)
	}
	hint := c.Hint
	if hint == "" {
		hint = "See " + findingCodesURI + "."
	}
	return sarifRule{ID: string(c.Code), Name: ruleName(string(c.Code)),
		ShortDescription:     sarifText{title},
		FullDescription:      sarifText{fmt.Sprintf("%s%s (%s). %s", strings.ToUpper(title[:1]), title[1:], c.Code, words(c.Severity).meaning)},
		Help:                 sarifText{hint},
		HelpURI:              findingCodesURI,
		DefaultConfiguration: sarifConfig{words(c.Severity).sarif}}
}

// fingerprint identifies a finding across runs for code scanning, which
// otherwise hashes the source line: the log is append-only, so its code,
// place, event and message identify it.
func fingerprint(f checks.Finding) string {
	h := sha256.New()
	for _, part := range []string{string(f.Code), f.Path, strconv.Itoa(f.Line), f.EventID, f.TaskID, f.Feature, prose.OneLine(f.Message)} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
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
