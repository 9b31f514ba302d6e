// Package kgateway is the `kgateway` profile: kgateway's TrafficPolicy (gateway.kgateway.dev),
// served by the GatewayClass controller kgateway.dev/kgateway, adapted to the profile seam
// (internal/profile). Its engine (package engine) predicts kgateway's merge of policies across
// Gateways, ListenerSets, listeners, routes, rules, extensionRef filters and route delegation
// chains under the parents' kgateway.dev/inherited-policy-priority annotation; this package
// reviews TrafficPolicy writes and parents' annotation changes with it, and gives the CLI's views.
// Status is kgateway's (status: none).
package kgateway
