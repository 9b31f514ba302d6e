package envoygateway

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/precedent-dev/precedent/internal/crdcheck"
	"github.com/precedent-dev/precedent/internal/policy"
	eg "github.com/precedent-dev/precedent/profiles/envoygateway"
	"github.com/precedent-dev/precedent/test/egcrds"
)

var update = flag.Bool("update", false, "rewrite testdata/expectations.yaml from the differences found, keeping the reasons of entries already there")

const expectationsFile = "testdata/expectations.yaml"

// The kinds of an expectation.
const (
	needsData = "needs data Precedent does not read"
	artefact  = "artefact of the comparison"
	wrong     = "Precedent wrong"
)

// Expectation is one unit that is not compared or differs, and why.
type Expectation struct {
	Case   string `json:"case"`
	Unit   string `json:"unit"`
	Kind   string `json:"kind"`
	Reason string `json:"reason"`
	// Envoy Gateway and Precedent are the values found (informative; rewritten by -update).
	EnvoyGateway string `json:"envoyGateway,omitempty"`
	Precedent    string `json:"precedent,omitempty"`
}

func (e Expectation) key() string { return e.Case + " | " + e.Unit }

// unit is one compared value: what Envoy Gateway wrote and what Precedent predicts.
type unit struct {
	Case, Name, Family string
	EG, Precedent      string
	Message            string // Envoy Gateway's condition message, for the reason
	// Schema is the first error of the CRD's schema and rules on the case's policy: the API
	// server would refuse it, and the translator corpus skips that step.
	Schema string
}

func (u unit) key() string { return u.Case + " | " + u.Name }

// TestEnvoyGatewayCorpus compares, per policy and ancestor of every Envoy Gateway translator case
// with one of the profile's kinds, what Envoy Gateway wrote in status (Accepted and its reason;
// the Overridden and Merged conditions) with what the profile predicts (Profile.Ancestors), and on
// every HTTP and TCP route of the case's xdsIR the BackendTrafficPolicies Envoy Gateway records
// there with those the profile predicts (family "reach", Profile.Holders; Envoy Gateway records no
// other kind on a route, nor any on a UDP route). A
// difference must be listed in testdata/expectations.yaml, and a listed one must still differ.
func TestEnvoyGatewayCorpus(t *testing.T) {
	cases, units := corpusUnits(t)
	list, listed := readExpectations(t)
	table, fresh, seen := judgeUnits(t, units, listed)
	for _, e := range list {
		if !seen[e.key()] {
			t.Errorf("%s: listed but no longer compared: remove it from %s", e.key(), expectationsFile)
		}
	}
	t.Log("\n" + corpusSummary(len(cases), table, fresh))
	if *update {
		writeExpectations(t, fresh)
	}
	for _, e := range fresh {
		if e.Kind == wrong {
			t.Logf("Precedent wrong: %s: %s", e.key(), e.Reason)
		}
	}
}

// corpusUnits loads the corpus and makes the units of every case, each checked against Envoy
// Gateway's CRD schemas.
func corpusUnits(t *testing.T) ([]corpusCase, []unit) {
	t.Helper()
	cases, err := loadCorpus()
	if err != nil {
		t.Fatal(err)
	}
	crds, err := egcrds.Load()
	if err != nil {
		t.Fatal(err)
	}
	schema, err := crdcheck.New(crds)
	if err != nil {
		t.Fatal(err)
	}
	var units []unit
	for _, c := range cases {
		us, err := compareCase(c, schema)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		units = append(units, us...)
	}
	return cases, units
}

// readExpectations reads the listed differences (none when the file is missing), as a list and by
// key.
func readExpectations(t *testing.T) ([]Expectation, map[string]Expectation) {
	t.Helper()
	listed := map[string]Expectation{}
	var list []Expectation
	raw, err := os.ReadFile(expectationsFile)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(raw, &list); err != nil {
		t.Fatalf("reading %s: %v", expectationsFile, err)
	}
	for _, e := range list {
		listed[e.key()] = e
	}
	return list, listed
}

// tally counts the units of one family: all, those that agree, and the differences listed and not.
type tally struct{ units, agree, listed, unlisted int }

// judgeUnits compares each unit with its listing: an agreeing unit must not be listed, a differing
// one must be (unless -update). It counts them per family and gives the differences as they would
// be listed now (fresh) and the keys of the units compared (seen).
func judgeUnits(t *testing.T, units []unit, listed map[string]Expectation) (map[string]*tally, []Expectation, map[string]bool) {
	t.Helper()
	table := map[string]*tally{}
	var fresh []Expectation
	seen := map[string]bool{}
	for _, u := range units {
		tl := table[u.Family]
		if tl == nil {
			tl = &tally{}
			table[u.Family] = tl
		}
		tl.units++
		seen[u.key()] = true
		e, ok := listed[u.key()]
		switch {
		case u.EG == u.Precedent && ok:
			t.Errorf("%s: listed (%s: %s) but agrees now (%s): remove it from %s", u.key(), e.Kind, e.Reason, u.EG, expectationsFile)
			tl.agree++
		case u.EG == u.Precedent:
			tl.agree++
		case ok:
			tl.listed++
			e.EnvoyGateway, e.Precedent = u.EG, u.Precedent
			fresh = append(fresh, e)
		default:
			tl.unlisted++
			kind, reason := classify(u)
			if u.Family == "reach" {
				kind, reason = classifyReach(u, listed)
			}
			fresh = append(fresh, Expectation{Case: u.Case, Unit: u.Name, Kind: kind, Reason: reason, EnvoyGateway: u.EG, Precedent: u.Precedent})
			if !*update {
				t.Errorf("%s: Envoy Gateway %q, Precedent %q (%s): not listed in %s", u.key(), u.EG, u.Precedent, u.Message, expectationsFile)
			}
		}
	}
	return table, fresh, seen
}

// corpusSummary is the table of counts per family and the reasons of the differences, most
// frequent first.
func corpusSummary(cases int, table map[string]*tally, fresh []Expectation) string {
	families := make([]string, 0, len(table))
	for f := range table {
		families = append(families, f)
	}
	sort.Strings(families)
	var b strings.Builder
	fmt.Fprintf(&b, "Envoy Gateway translator corpus: %d cases\n%-12s %6s %6s %6s %8s\n", cases, "unit", "units", "agree", "listed", "unlisted")
	for _, f := range families {
		tl := table[f]
		fmt.Fprintf(&b, "%-12s %6d %6d %6d %8d\n", f, tl.units, tl.agree, tl.listed, tl.unlisted)
	}
	counts := map[string]int{}
	for _, e := range fresh {
		counts[e.Kind+": "+e.Reason]++
	}
	reasons := make([]string, 0, len(counts))
	for r := range counts {
		reasons = append(reasons, r)
	}
	sort.Slice(reasons, func(i, j int) bool {
		if counts[reasons[i]] != counts[reasons[j]] {
			return counts[reasons[i]] > counts[reasons[j]]
		}
		return reasons[i] < reasons[j]
	})
	b.WriteString("reasons:\n")
	for _, r := range reasons {
		fmt.Fprintf(&b, "%5d  %s\n", counts[r], r)
	}
	return b.String()
}

// writeExpectations rewrites the expectations file with the differences as they are now (-update).
func writeExpectations(t *testing.T, fresh []Expectation) {
	t.Helper()
	sort.Slice(fresh, func(i, j int) bool { return fresh[i].key() < fresh[j].key() })
	out, err := yaml.Marshal(fresh)
	if err != nil {
		t.Fatal(err)
	}
	header := "# Units of Envoy Gateway's translator corpus where Precedent's prediction is not compared or differs,\n" +
		"# each with its kind and a one-line reason. Regenerate with `go test ./test/conformance/envoygateway -update`:\n" +
		"# entries already here keep their kind and reason; new ones get a first classification to review.\n"
	if err := os.MkdirAll(filepath.Dir(expectationsFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(expectationsFile, append([]byte(header), out...), 0o644); err != nil {
		t.Fatal(err)
	}
}

// egAncestor is one status.ancestors entry as Envoy Gateway wrote it.
type egAncestor struct {
	acceptance, message, relation string
}

// compareCase makes the units of one case.
func compareCase(c corpusCase, schema *crdcheck.Checker) ([]unit, error) {
	in, err := offline(c.Objects)
	if err != nil {
		return nil, err
	}
	refused := map[string]string{}
	for _, o := range c.Objects {
		if errs := schema.Check(context.Background(), o.DeepCopy()); len(errs) > 0 {
			refused[o.GetKind()+" "+o.GetNamespace()+"/"+o.GetName()] = errs[0].Error()
		}
	}
	var units []unit
	for _, p := range c.Policies {
		k, ok := kindOf(in.Registry, p)
		if !ok {
			return nil, fmt.Errorf("%s is not registered", p.GetKind())
		}
		ref := policy.Ref{Namespace: p.GetNamespace(), Name: p.GetName()}
		want := statusOf(p)
		got, err := eg.Profile{}.Ancestors(in, k, ref)
		if err != nil {
			return nil, err
		}
		pred := map[string]eg.AncestorStatus{}
		for _, a := range got {
			pred[a.Ancestor] = a
		}
		names := map[string]bool{}
		for a := range want {
			names[a] = true
		}
		any, invalid := pred[eg.AnyAncestor]
		if !invalid {
			for a := range pred {
				names[a] = true
			}
		}
		if len(names) == 0 {
			names["(none)"] = true
		}
		for a := range names {
			w, inEG := want[a]
			if !inEG {
				w = egAncestor{acceptance: "no status", relation: "-"}
			}
			pa, inP := pred[a]
			if invalid {
				pa, inP = any, true
			}
			gotAcc, gotRel := "no status", "-"
			if inP {
				gotAcc, gotRel = acceptance(pa.Accepted.Status, pa.Accepted.Reason), relation(pa.Overridden, pa.MergedWith, pa.Merges)
			}
			subject := p.GetKind() + " " + ref.String() + " @ " + a
			bad := refused[p.GetKind()+" "+ref.String()]
			units = append(units, unit{Case: c.Name, Name: subject + ": accepted", Family: "acceptance", EG: w.acceptance, Precedent: gotAcc, Message: w.message, Schema: bad})
			if w.relation != "-" || gotRel != "-" {
				units = append(units, unit{Case: c.Name, Name: subject + ": relation", Family: "relation", EG: w.relation, Precedent: gotRel, Message: w.message, Schema: bad})
			}
		}
	}
	reach, err := reachUnits(c, in)
	if err != nil {
		return nil, err
	}
	units = append(units, reach...)
	sort.Slice(units, func(i, j int) bool { return units[i].Name < units[j].Name })
	return units, nil
}

func kindOf(reg *policy.Registry, u *unstructured.Unstructured) (policy.Kind, bool) {
	for _, k := range reg.Kinds() {
		if k.GVK.GroupKind() == u.GroupVersionKind().GroupKind() {
			return k, true
		}
	}
	return policy.Kind{}, false
}

func acceptance(status, reason string) string {
	if status == "" {
		return "no Accepted condition"
	}
	if status == "True" {
		return "True"
	}
	return "False/" + reason
}

func relation(overridden bool, mergedWith string, merges bool) string {
	var parts []string
	if overridden {
		parts = append(parts, "overridden")
	}
	if mergedWith != "" {
		parts = append(parts, "merged with "+mergedWith)
	}
	if merges {
		parts = append(parts, "route policies merged with it")
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, "; ")
}

// statusOf reads the status.ancestors Envoy Gateway wrote, by ancestor.
func statusOf(p *unstructured.Unstructured) map[string]egAncestor {
	out := map[string]egAncestor{}
	ancestors, _, _ := unstructured.NestedSlice(p.Object, "status", "ancestors")
	for _, raw := range ancestors {
		m, _ := raw.(map[string]interface{})
		ar, _ := m["ancestorRef"].(map[string]interface{})
		a, _ := eg.AncestorName(ar, p.GetNamespace())
		e := egAncestor{acceptance: "no Accepted condition"}
		overridden, merged, merges := false, "", false
		conds, _ := m["conditions"].([]interface{})
		for _, rc := range conds {
			c, _ := rc.(map[string]interface{})
			typ, _ := c["type"].(string)
			status, _ := c["status"].(string)
			reason, _ := c["reason"].(string)
			msg, _ := c["message"].(string)
			switch typ {
			case "Accepted":
				e.acceptance, e.message = acceptance(status, reason), msg
			case "Overridden":
				overridden = status == "True"
			case "Merged":
				switch {
				case status != "True":
				case strings.HasPrefix(msg, "Merged with policy "):
					merged = strings.TrimPrefix(msg, "Merged with policy ")
				default: // "This policy is being merged by other … for these routes: […]"
					merges = true
				}
			}
		}
		e.relation = relation(overridden, merged, merges)
		out[a] = e
	}
	return out
}

// classify gives a new difference a first kind and reason from Envoy Gateway's message, to be
// reviewed: the objects Precedent does not read (Services, Secrets, ConfigMaps, Backends, the
// EnvoyProxy, the extension servers) and otherwise "Precedent wrong" with Envoy Gateway's words.
func classify(u unit) (string, string) {
	if u.Schema != "" {
		return artefact, "the API server refuses this policy (its CRD's schema and rules; the corpus skips them): " + firstLine(u.Schema)
	}
	if strings.Contains(u.Case, "truncated") && (u.EG == "no status" || u.EG == "no Accepted condition") {
		return artefact, "Envoy Gateway truncates status.ancestors to 16 entries"
	}
	if strings.HasSuffix(u.Case, "status-conditions") && strings.Contains(u.EG+u.Precedent, "Conflicted") {
		return artefact, "the case's policies have no creationTimestamp and the translator test keeps file order; a cluster orders them by creationTimestamp, then namespace/name"
	}
	if strings.Contains(u.Case, "unmanaged") && u.EG == "no status" {
		return wrong, "needs GatewayClass controller filtering (issue 29 item 2)"
	}
	msg := strings.ToLower(u.Message)
	for _, w := range []struct{ word, reason string }{
		{"secret", "needs the Secrets the policy references"},
		{"configmap", "needs the ConfigMaps the policy references"},
		{"service", "needs the Services (ports, types) the policy references"},
		{"backend", "needs the backends (Services, Backends) the policy references"},
		{"envoyproxy", "needs the EnvoyProxy of the GatewayClass or Gateway"},
		{"extension", "needs the extension server's settings"},
		{"lua", "needs a Lua interpreter to validate the script"},
		{"wasm", "needs the Wasm module's source"},
	} {
		if strings.Contains(msg, w.word) {
			return needsData, w.reason
		}
	}
	if u.Message != "" {
		return wrong, "Envoy Gateway: " + firstLine(u.Message)
	}
	return wrong, fmt.Sprintf("Envoy Gateway %s, Precedent %s", u.EG, u.Precedent)
}

func firstLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}
