package finding

import (
	"encoding/json"
	"io"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/precedent-dev/precedent/internal/warning"
)

// SARIFSchema is the URI of the SARIF 2.1.0 schema the log names (the OASIS standard's).
const SARIFSchema = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

// The SARIF 2.1.0 objects Precedent writes: one run, the tool with a rule per registered code,
// a result per finding located at the object's first line.
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool    sarifTool     `json:"tool"`
		Results []sarifResult `json:"results"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name           string      `json:"name"`
		Version        string      `json:"version,omitempty"`
		InformationURI string      `json:"informationUri"`
		Rules          []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID                   string       `json:"id"`
		ShortDescription     sarifText    `json:"shortDescription"`
		FullDescription      *sarifText   `json:"fullDescription,omitempty"`
		Help                 *sarifText   `json:"help,omitempty"`
		DefaultConfiguration sarifDefault `json:"defaultConfiguration"`
	}
	sarifDefault struct {
		Level string `json:"level"`
	}
	sarifText struct {
		Text string `json:"text"`
	}
	sarifResult struct {
		RuleID     string           `json:"ruleId"`
		RuleIndex  int              `json:"ruleIndex"`
		Level      string           `json:"level"`
		Message    sarifText        `json:"message"`
		Locations  []sarifLocation  `json:"locations,omitempty"`
		Properties *sarifProperties `json:"properties,omitempty"`
	}
	sarifLocation struct {
		PhysicalLocation *sarifPhysical    `json:"physicalLocation,omitempty"`
		LogicalLocations []sarifLogicalLoc `json:"logicalLocations,omitempty"`
	}
	sarifPhysical struct {
		ArtifactLocation sarifArtifact `json:"artifactLocation"`
		Region           *sarifRegion  `json:"region,omitempty"`
	}
	sarifArtifact struct {
		URI string `json:"uri"`
	}
	sarifRegion struct {
		StartLine int `json:"startLine"`
	}
	sarifLogicalLoc struct {
		FullyQualifiedName string `json:"fullyQualifiedName"`
		Kind               string `json:"kind"`
	}
	sarifProperties struct {
		Field    string   `json:"field,omitempty"`
		Affected []string `json:"affected"`
	}
)

// level is SARIF's name of a severity.
func level(s warning.Severity) string {
	switch s {
	case warning.SeverityError:
		return "error"
	case warning.SeverityWarning:
		return "warning"
	}
	return "note"
}

// uncoded is the rule id of findings that have no code yet, per severity.
func uncoded(s warning.Severity) string { return "uncoded-" + level(s) }

// WriteSARIF writes fs as a SARIF 2.1.0 log for code scanning: tool.driver.rules lists every
// registered code (and one rule per severity for findings without a code), each result names its
// rule, its level, the object's file (as given, with forward slashes) and the line it starts on.
func WriteSARIF(w io.Writer, fs []Finding, version string) error {
	var rules []sarifRule
	index := map[string]int{}
	add := func(r sarifRule) {
		index[r.ID] = len(rules)
		rules = append(rules, r)
	}
	for _, c := range warning.Codes() {
		r := sarifRule{ID: c.ID, ShortDescription: sarifText{nonEmpty(c.Title, c.ID)}, DefaultConfiguration: sarifDefault{level(c.Severity)}}
		if c.Meaning != "" {
			r.FullDescription = &sarifText{c.Meaning}
		}
		if c.Fix != "" {
			r.Help = &sarifText{c.Fix}
		}
		add(r)
	}
	results := make([]sarifResult, 0, len(fs))
	for i := range fs {
		f := &fs[i]
		id := f.Code
		if id == "" {
			id = uncoded(f.Severity)
		}
		if _, ok := index[id]; !ok {
			add(sarifRule{ID: id, ShortDescription: sarifText{"a Precedent " + level(f.Severity) + " without a code yet"}, DefaultConfiguration: sarifDefault{level(f.Severity)}})
		}
		res := sarifResult{RuleID: id, RuleIndex: index[id], Level: level(f.Severity), Message: sarifText{nonEmpty(f.Text(), f.Message)}}
		if f.File != "" || f.Object.Name != "" {
			loc := sarifLocation{}
			if f.File != "" {
				loc.PhysicalLocation = &sarifPhysical{ArtifactLocation: sarifArtifact{URI: fileURI(f.File)}}
				if f.Line > 0 {
					loc.PhysicalLocation.Region = &sarifRegion{StartLine: f.Line}
				}
			}
			if f.Object.Name != "" {
				loc.LogicalLocations = []sarifLogicalLoc{{FullyQualifiedName: f.Object.Subject(), Kind: "object"}}
			}
			res.Locations = []sarifLocation{loc}
		}
		// A property bag (SARIF 3.8): the field path when there is one, and the affected paths,
		// an empty list when the finding names none.
		res.Properties = &sarifProperties{Field: f.Field, Affected: f.Affected}
		if res.Properties.Affected == nil {
			res.Properties.Affected = []string{}
		}
		results = append(results, res)
	}
	log := sarifLog{Schema: SARIFSchema, Version: "2.1.0", Runs: []sarifRun{{
		Tool:    sarifTool{Driver: sarifDriver{Name: "precedent", Version: version, InformationURI: "https://github.com/precedent-dev/precedent", Rules: rules}},
		Results: results,
	}}}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
}

// fileURI is a relative URI reference for a path as the user gave it ("./a b.yaml" → "a%20b.yaml").
func fileURI(p string) string {
	p = strings.TrimPrefix(filepath.ToSlash(p), "./")
	return (&url.URL{Path: p}).String()
}

func nonEmpty(s, or string) string {
	if s == "" {
		return or
	}
	return s
}
