// Package addrorder sorts pointers to objects by their addresses, so that a build that walks many
// objects reads the heap forward instead of at a random place per object. The State hands its
// objects out in this order, and the profiles' builds walk their maps of objects in it; no build's
// result depends on the order.
package addrorder
