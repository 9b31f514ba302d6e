package kgateway

// knownWrong are the disagreements that are Precedent's fault and not fixed yet (issue 36), by
// "<case> <question>", with their cause. The list only shrinks: TestCorpus fails on an entry that
// agrees now. Wildcard delegation (9 question-cases), listener policies (13) and one filter per
// provider (5) were fixed in the engine.
var knownWrong = map[string]string{
	"TestBasic/traffic-policy/header-modifiers-all.yaml→traffic-policy/header-modifiers-all.yaml effects": causeHeaders,
}

const causeHeaders = "headerModifiers at every scope: Envoy applies the route's and the Gateway's or listener's header mutations"
