package main

import (
	"slices"
	"testing"
)

func TestMissingGatewayResources(t *testing.T) {
	for _, tc := range []struct {
		name   string
		served []string
		want   []string
	}{
		{"none served", nil, []string{"gatewayclasses", "gateways", "httproutes", "grpcroutes"}},
		{"all served, and more", []string{"grpcroutes", "httproutes", "gateways", "gatewayclasses", "gateways/status", "listenersets"}, nil},
		{"GRPCRoute missing (an old experimental install)", []string{"gatewayclasses", "gateways", "httproutes"}, []string{"grpcroutes"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := missingGatewayResources(tc.served); !slices.Equal(got, tc.want) {
				t.Errorf("missing %v, want %v", got, tc.want)
			}
		})
	}
}
