// Package engine predicts what NGINX Gateway Fabric (gateway.nginx.org) does with its policies, as
// its graph builder decides (nginx/nginx-gateway-fabric internal/controller/state/graph/policies.go):
// a policy whose targets do not exist is ignored; a route-targeted policy is not accepted when a
// route it does not reference shares a gateway:hostname:port/path with one it does
// (checkTargetRoutesForOverlap); among valid policies of one kind on one target, ordered by
// creationTimestamp then namespace/name (ngfsort.LessClientObject), a later one that sets a field an
// earlier one sets is Conflicted (markConflictedPolicies, with each kind's Validator.Conflicts). The
// effective settings: ClientSettingsPolicy is inherited, the route's fields overriding the Gateway's
// one by one as NGINX inherits directives from server to location; UpstreamSettingsPolicies on one
// Service merge (upstreamsettings.Processor); ObservabilityPolicy applies to the routes it targets.
// ProxySettingsPolicy, RateLimitPolicy, WAFPolicy and PayloadProcessor are inherited like
// ClientSettingsPolicy; SnippetsPolicy and ExternalLoadBalancer hold on a Gateway's routes; a kind's
// lists (rate-limit rules, snippets, WAF policies) never conflict and apply together; PayloadProcessor
// and ExternalLoadBalancer allow one per target (processExternalLoadBalancers for the latter).
// It does no I/O: it takes objects and the topology graph and returns values.
package engine
