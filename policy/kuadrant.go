package policy

// The kuadrant profile reads Kuadrant's own kinds as they are (kuadrant.io/v1 RateLimitPolicy and
// AuthPolicy, kuadrant.io/v1alpha1 TokenRateLimitPolicy).

// KuadrantKinds are the kinds the kuadrant profile knows how to read.
var KuadrantKinds = []string{"AuthPolicy", "RateLimitPolicy", "TokenRateLimitPolicy"}

// KuadrantRulesField is the rules field of a Kuadrant kind: "limits" for the rate limit kinds,
// "rules" for AuthPolicy; false for a kind the profile does not know.
func KuadrantRulesField(kind string) (string, bool) {
	switch kind {
	case "RateLimitPolicy", "TokenRateLimitPolicy":
		return "limits", true
	case "AuthPolicy":
		return "rules", true
	}
	return "", false
}
