package kgateway

// knownWrong are the disagreements that are Precedent's fault and not fixed yet (issue 36), by
// "<case> <question>", with their cause. The list only shrinks: TestCorpus fails on an entry that
// agrees now.
var knownWrong = map[string]string{
	"TestBasic/traffic-policy/extauth-grpc.yaml→traffic-policy/extauth-grpc.yaml effects":                                        causeListener,
	"TestBasic/traffic-policy/extauth-http.yaml→traffic-policy/extauth-http.yaml effects":                                        causeListener,
	"TestBasic/traffic-policy/fail-open→traffic-policy/fail-open.yaml effects":                                                   causeListener,
	"TestBasic/traffic-policy/gateway-section-attachment→traffic-policy/gateway-section-attachment.yaml effects":                 causeListener,
	"TestBasic/basic-auth/gateway-with-route-override.yaml→basic-auth/gateway-with-route-override.yaml effects":                  causeListener,
	"TestBasic/basic-auth/route-disable.yaml→basic-auth/route-disable.yaml effects":                                              causeListener,
	"TestBasic/traffic-policy/multi-dimensional-descriptors→traffic-policy/multi-dimensional-descriptors.yaml effects":           causeListener,
	"TestBasic/traffic-policy/multiple-headers-single-descriptor→traffic-policy/multiple-headers-single-descriptor.yaml effects": causeListener,
	"TestBasic/traffic-policy/extproc.yaml→traffic-policy/extproc.yaml effects":                                                  causeListener,
	"TestBasic/jwt/gateway-listener.yaml→jwt/gateway-listener.yaml effects":                                                      causeListener,
	"TestBasic/traffic-policy/oauth2.yaml→traffic-policy/oauth2.yaml effects":                                                    causeListener,
	"TestValidation/attachment/gateway-listener-invalid.yaml effects":                                                            causeListener,
	"TestValidation/attachment/xlistenerset-listener-invalid.yaml effects":                                                       causeListener,
	"TestRouteDelegation/traffic_policy.yaml served":                                                                             causeWildcard,
	"TestRouteDelegation/traffic_policy_route_policy.yaml served":                                                                causeWildcard,
	"TestRouteDelegation/traffic_policy_inheritance.yaml served":                                                                 causeWildcard,
	"TestRouteDelegation/traffic_policy_inheritance_child_override_ignore.yaml served":                                           causeWildcard,
	"TestRouteDelegation/traffic_policy_inheritance_child_override_ok.yaml served":                                               causeWildcard,
	"TestRouteDelegation/traffic_policy_multi_level_inheritance_override_disabled.yaml served":                                   causeWildcard,
	"TestRouteDelegation/traffic_policy_multi_level_inheritance_override_enabled.yaml served":                                    causeWildcard,
	"TestRouteDelegation/traffic_policy_filter_override_merge.yaml served":                                                       causeWildcard,
	"TestRouteDelegation/policy_deep_merge.yaml served":                                                                          causeWildcard,
}

const (
	causeWildcard = "wildcard delegation: a backendRef named \"*\" selects every HTTPRoute of its namespace"
	causeListener = "listener policies: a policy on a listener applies to every route served through it"
)
