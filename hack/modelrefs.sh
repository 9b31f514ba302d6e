#!/bin/sh
# modelrefs.sh [REV]: per policy model, the Go files outside profiles/<model>/ that name it (its
# kinds, group, profile name or package), with how many lines do in code and in comments. Tests
# (*_test.go) and the integration suites (test/) are listed apart: they exercise the models through
# the front doors on purpose. REV defaults to the work tree. The last lines sum it up per model:
# the source files outside the model's folder that name it, and their lines of code.
rev=${1:-}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
refs() { # model regexp [folder, default the model]
	git grep -IniE "$2" $rev -- '*.go' ":!profiles/${3:-$1}/" | sed "s|^$rev:||" | awk -F: -v model="$1" '
		{ line = $0; sub(/^[^:]*:[0-9]+:/, "", line)
		  kind = (line ~ /^[ \t]*\/\//) ? "comment" : "code"
		  where = ($1 ~ /^test\// || $1 ~ /_test\.go$/) ? "tests" : "source"
		  n[where" "$1" "kind]++; files[where" "$1] = 1 }
		END { for (f in files) { split(f, a, " ")
		        printf "%s %-7s %-48s code %3d  comments %3d\n", model, a[1], a[2], n[f" code"], n[f" comment"] } }' | sort -k2,2r -k3
}
{
refs defaults-overrides 'defaults-overrides|ProfileDefaultsOverrides|inherited\.DefaultsOverrides' inherited
refs gep713 'gep713|GEP-713|ProfileGEP713|inherited\.GEP713' inherited
refs kuadrant 'kuadrant|TokenRateLimitPolicy'
refs access 'AccessPolicy|agentic|profiles/access|"access"|\baccess\.[A-Z]'
refs mesh 'MeshTimeout|MeshTrafficPermission|kuma|Dataplane|ProfileMesh|profiles/mesh|"mesh"|\bmesh\.[A-Z]'
refs envoygateway 'envoyproxy|envoy-gateway|SecurityPolicy|BackendTrafficPolicy|ClientTrafficPolicy|EnvoyExtensionPolicy|profiles/envoygateway|"envoygateway"'
refs nginxgatewayfabric 'nginx-gateway-fabric|nginxgatewayfabric|gateway\.nginx\.org|ClientSettingsPolicy|UpstreamSettingsPolicy|ObservabilityPolicy'
refs kgateway '\bkgateway'
} | tee "$out"
echo
echo "model               source files  code lines  (outside profiles/<model>/, tests apart)"
awk '$2 == "source" { f[$1]++; c[$1] += $5 } END { for (m in f) printf "%-19s %12d %11d\n", m, f[m], c[m] }' "$out" | sort
