// Package picture draws the policy hierarchy: GatewayClass, Gateway, ListenerSet and listener, route
// and rule, each policy attached where it targets, and on each path the rules in effect coloured by
// the policy they come from, with the rules of reaching policies that are not in effect struck
// through. It renders Graphviz DOT and Mermaid from one model built by the CLI (`precedent effective
// -o dot|mermaid`); it does no I/O beyond the writer it is given.
package picture
