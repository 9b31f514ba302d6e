package kgateway

// knownWrong are the disagreements that are Precedent's fault and not fixed yet (issue 36), by
// "<case> <question>", with their cause. The list only shrinks: TestCorpus fails on an entry that
// agrees now. Wildcard delegation (9 question-cases) and listener policies (13) were fixed in the
// engine.
var knownWrong = map[string]string{
	"TestBasic/traffic-policy/extauth-grpc.yaml→traffic-policy/extauth-grpc.yaml effects": causeProvider,
	"TestBasic/traffic-policy/extauth-http.yaml→traffic-policy/extauth-http.yaml effects": causeProvider,
	"TestBasic/traffic-policy/extproc.yaml→traffic-policy/extproc.yaml effects": causeProvider,
	"TestBasic/jwt/gateway-and-route.yaml→jwt/gateway-and-route.yaml effects": causeProvider,
	"setup/standard/extauth-gw-and-route effects": causeProvider,
}

const causeProvider = "one filter per provider: a route policy naming another provider leaves the Gateway's or listener's on"
