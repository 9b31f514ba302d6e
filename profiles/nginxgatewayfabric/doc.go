// Package nginxgatewayfabric is the profile of NGINX Gateway Fabric's policies (gateway.nginx.org
// ClientSettingsPolicy, UpstreamSettingsPolicy, ObservabilityPolicy, ProxySettingsPolicy,
// RateLimitPolicy, SnippetsPolicy, WAFPolicy, PayloadProcessor, ExternalLoadBalancer): the adapter between the
// profile seam and its engine (package engine). Its kinds are configured by kind lines with
// `profile: nginx-gateway-fabric`; their status is NGINX Gateway Fabric's own.
package nginxgatewayfabric
