# Precedent — build, test and run. `make help` lists the targets.
SHELL := /usr/bin/env bash
.DEFAULT_GOAL := help

GO ?= go
BIN := $(CURDIR)/bin

# Pinned control-plane versions for envtest and `precedent dev`.
KUBE_VERSION ?= v1.37.2
KUBE_MAJOR := 1
KUBE_MINOR := 37
ETCD_VERSION ?= v3.6.16
# Binaries are cached outside the clone, keyed by version, so fresh clones on the same machine reuse them.
CACHE_DIR ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/precedent
CP_DIR := $(CACHE_DIR)/control-plane/kube-$(KUBE_VERSION)-etcd-$(ETCD_VERSION)
KUBE_APISERVER := $(CP_DIR)/kube-apiserver
ETCD := $(CP_DIR)/etcd
# The SARIF 2.1.0 JSON schema `validate -o sarif` is checked against (cmd/precedent's
# TestValidateSARIFSchema), as Microsoft's @microsoft/jest-sarif npm package ships it
# (lib/schemas/sarif-2.1.0-rtm.5.json), fetched from the npm registry into the cache, never copied
# into the repository.
SARIF_PKG_VERSION ?= 1.0.0-beta.0
SARIF_PKG_SHA256 ?= 748e2c3d1a842e7bb258416685c7ea3a0da40005b72267b2052c2856d48ad102
SARIF_SCHEMA := $(CACHE_DIR)/sarif/jest-sarif-$(SARIF_PKG_VERSION)/sarif-schema-2.1.0.json
export PRECEDENT_SARIF_SCHEMA := $(SARIF_SCHEMA)
VERSION_PKG := k8s.io/component-base/version
KUBE_LDFLAGS := -s -w -X $(VERSION_PKG).gitVersion=$(KUBE_VERSION) -X $(VERSION_PKG).gitMajor=$(KUBE_MAJOR) -X $(VERSION_PKG).gitMinor=$(KUBE_MINOR)

export KUBEBUILDER_ASSETS := $(BIN)/control-plane

# The checker of `precedent effective -o mermaid` for test/picture: Mermaid's own parser (mermaid and
# jsdom from npm's configured registry), cached outside the clone by version. The DOT pictures are
# parsed in Go (gonum's graph/formats/dot), so make test needs no Graphviz and no root.
MERMAID_VERSION ?= 11.17.2
JSDOM_VERSION ?= 26.1.0
MERMAID_DIR := $(CACHE_DIR)/mermaid/mermaid-$(MERMAID_VERSION)-jsdom-$(JSDOM_VERSION)
export PRECEDENT_MERMAID_CHECK := $(MERMAID_DIR)/check.mjs

# Build identity, stamped into every binary (package buildinfo; `precedent version` prints it). The
# commit time dates the image, so a rebuild of one commit gives the same digests.
VERSION := $(or $(VERSION),$(shell git describe --tags --always --dirty 2>/dev/null),v0.0.0-dev)
COMMIT := $(or $(COMMIT),$(shell git rev-parse HEAD 2>/dev/null),unknown)
SOURCE_DATE_EPOCH := $(or $(SOURCE_DATE_EPOCH),$(shell git log -1 --format=%ct 2>/dev/null),0)
BUILDINFO_PKG := github.com/precedent-dev/precedent/internal/buildinfo
LDFLAGS := -X $(BUILDINFO_PKG).version=$(VERSION) -X $(BUILDINFO_PKG).commit=$(COMMIT)
# Build tags of the cgo builds (build, install). Kustomize's Go-plugin loader imports package plugin,
# which in a cgo build makes the linker export every symbol and keep every exported method (24 MB
# more binary, all of it resident: a no-op run's RSS goes from 47 to 70 MB); the kustomizations are
# built with plugins disabled (krusty.MakeDefaultOptions), so the loader is never used. The static
# builds (CGO_ENABLED=0) cannot use plugins and are not affected.
GO_TAGS := kustomize_disable_go_plugin_support

# The image: $(IMAGE_REPO):$(VERSION), so a release tag vX.Y.Z gives ghcr.io/precedent-dev/precedent:vX.Y.Z
# (the reference config/default deploys). IMAGE_LICENSES is an SPDX expression for the licenses label.
IMAGE_REPO ?= ghcr.io/precedent-dev/precedent
# The next release: the tag config/default deploys and the chart's version (hack/release's test checks
# they agree). `make release VERSION=$(RELEASE_VERSION)` builds it.
RELEASE_VERSION := v0.1.0
RELEASE_DIR := $(BIN)/release
IMAGE ?= $(IMAGE_REPO):$(VERSION)
IMAGE_LICENSES ?= Apache-2.0
PLATFORMS ?= linux/amd64 linux/arm64
IMAGE_DIR := $(BIN)/image
IMAGE_BINS := $(foreach p,$(PLATFORMS),$(BIN)/$(subst /,-,$(p))/precedent)
# The kubectl plugin's platforms: `make release` packs each build as kubectl-precedent_<version>_<os>_<arch>.tar.gz
# and lists them in krew's manifest precedent.yaml.
PLUGIN_PLATFORMS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64
PLUGIN_BINS := $(foreach p,$(PLUGIN_PLATFORMS),$(BIN)/$(subst /,-,$(p))/precedent)
# What the binary is built from (not tests, test/ or hack/); a change relinks the image's binaries.
GO_SOURCES := $(shell git ls-files -co --exclude-standard -- '*.go' ':!:*_test.go' ':!:test/' ':!:hack/' 2>/dev/null) go.mod go.sum

.PHONY: help
help: ## List the targets.
	@awk 'BEGIN{FS=":.*## "} /^[a-zA-Z_-]+:.*## /{printf "  %-16s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

.PHONY: install
install: ## Install precedent and the kubectl plugin kubectl-precedent into $(GOBIN) (default: go env GOPATH/bin).
	$(GO) install -tags '$(GO_TAGS)' -ldflags '$(LDFLAGS)' ./cmd/precedent
	ln -sf precedent "$$($(GO) env GOPATH)/bin/kubectl-precedent"
	@echo ">> installed; make sure $$($(GO) env GOPATH)/bin is on PATH, then: kubectl precedent effective --kind AuthPolicy -A"

.PHONY: build
build: ## Build bin/precedent (also installed as bin/kubectl-precedent).
	$(GO) build -tags '$(GO_TAGS)' -ldflags '$(LDFLAGS)' -o $(BIN)/precedent ./cmd/precedent
	ln -sf precedent $(BIN)/kubectl-precedent

# The stamp changes only when the build identity does, so binaries and image are rebuilt only then.
$(BIN)/.buildinfo: FORCE
	@mkdir -p $(BIN)
	@echo '$(VERSION) $(COMMIT) $(SOURCE_DATE_EPOCH) $(IMAGE_LICENSES)' | cmp -s - $@ || echo '$(VERSION) $(COMMIT) $(SOURCE_DATE_EPOCH) $(IMAGE_LICENSES)' > $@

# bin/OS-ARCH/precedent: static, for the image and the kubectl plugin's archives.
$(BIN)/%/precedent: $(GO_SOURCES) $(BIN)/.buildinfo
	CGO_ENABLED=0 GOOS=$(word 1,$(subst -, ,$*)) GOARCH=$(word 2,$(subst -, ,$*)) $(GO) build -trimpath -ldflags '-s -w $(LDFLAGS)' -o $@ ./cmd/precedent

$(IMAGE_DIR)/index.json: $(IMAGE_BINS) $(wildcard hack/image/*.go) $(BIN)/.buildinfo
	$(GO) run ./hack/image build --out $(IMAGE_DIR) --tag $(VERSION) --version $(VERSION) --revision $(COMMIT) \
	  --created $(SOURCE_DATE_EPOCH) $(if $(IMAGE_LICENSES),--licenses '$(IMAGE_LICENSES)') \
	  $(foreach p,$(PLATFORMS),--binary $(p)=$(BIN)/$(subst /,-,$(p))/precedent)

.PHONY: image
image: $(IMAGE_DIR)/index.json ## Build the OCI image (static, non-root, linux/amd64 + linux/arm64) into the OCI layout bin/image, without a container engine.

.PHONY: image-push
image-push: image ## Push bin/image to IMAGE=REGISTRY/REPO:TAG (default ghcr.io/precedent-dev/precedent:VERSION); INSECURE=1 for a plain-HTTP loopback registry.
	$(GO) run ./hack/image push --layout $(IMAGE_DIR) --image $(IMAGE) $(if $(INSECURE),--insecure)

.PHONY: release
release: ## make release VERSION=vX.Y.Z: into bin/release, the packaged chart (.tgz) and its index.yaml, install.yaml (config/default with that image) and install-builtin-certs.yaml (without cert-manager), the kubectl plugin's archives and krew manifest (precedent.yaml), and the image layout (bin/image), one tag.
	@[[ "$(VERSION)" =~ ^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$$ ]] || { echo "make release VERSION=vX.Y.Z, or vX.Y.Z-PRERELEASE for a test build (got $(VERSION))"; exit 1; }
	@[[ "$(VERSION)" == *-* || "$(VERSION)" = "$(RELEASE_VERSION)" ]] || { echo "VERSION $(VERSION) is not RELEASE_VERSION $(RELEASE_VERSION): set RELEASE_VERSION, config/manager's newTag and charts/precedent/Chart.yaml's version and appVersion to it first"; exit 1; }
	@$(MAKE) --no-print-directory $(PLUGIN_BINS) image VERSION=$(VERSION)
	@rm -rf $(RELEASE_DIR) && mkdir -p $(RELEASE_DIR)
	kubectl kustomize config/default > $(RELEASE_DIR)/kustomize.yaml
	kubectl kustomize config/builtin-certs > $(RELEASE_DIR)/kustomize-builtin.yaml
	$(GO) run ./hack/release --version $(VERSION) --out $(RELEASE_DIR) --install $(RELEASE_DIR)/kustomize.yaml --install-builtin $(RELEASE_DIR)/kustomize-builtin.yaml --image-repo $(IMAGE_REPO) --created $(SOURCE_DATE_EPOCH) \
	  $(foreach p,$(PLUGIN_PLATFORMS),--plugin $(p)=$(BIN)/$(subst /,-,$(p))/precedent)
	@rm -f $(RELEASE_DIR)/kustomize.yaml $(RELEASE_DIR)/kustomize-builtin.yaml
	@echo ">> release $(VERSION): $(RELEASE_DIR) and the image layout $(IMAGE_DIR) (tag $(VERSION)); push it with make image-push VERSION=$(VERSION)"

.PHONY: FORCE
FORCE:

$(KUBE_APISERVER):
	@echo ">> building kube-apiserver $(KUBE_VERSION) from the Go module proxy (once per machine; about 5-6 minutes on 2 cores)"
	@mkdir -p $(CP_DIR)
	cd hack/tools/kube-apiserver && CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(KUBE_LDFLAGS)' -o $@.tmp k8s.io/kubernetes/cmd/kube-apiserver && mv $@.tmp $@

$(ETCD):
	@echo ">> building etcd $(ETCD_VERSION) from the Go module proxy (once per machine; about 30 seconds)"
	@mkdir -p $(CP_DIR)
	cd hack/tools/etcd && CGO_ENABLED=0 $(GO) build -trimpath -ldflags '-s -w' -o $@.tmp go.etcd.io/etcd/server/v3 && mv $@.tmp $@

.PHONY: control-plane
control-plane: $(ETCD) $(KUBE_APISERVER) ## Build (or reuse) the pinned etcd + kube-apiserver and link them into bin/control-plane.
	@mkdir -p $(BIN)
	@ln -sfn $(CP_DIR) $(BIN)/control-plane
	@echo ">> control plane: $$($(KUBE_APISERVER) --version) / etcd $(ETCD_VERSION) in $(CP_DIR)"

.PHONY: sarif-schema
sarif-schema: $(SARIF_SCHEMA) ## Fetch (or reuse) the SARIF 2.1.0 JSON schema the SARIF output is tested against, into the cache.

$(SARIF_SCHEMA):
	@mkdir -p $(@D)
	@echo ">> fetching the SARIF 2.1.0 schema with npm pack (@microsoft/jest-sarif@$(SARIF_PKG_VERSION), npm's configured registry) into $(@D)"
	@cd $(@D) && npm pack --silent @microsoft/jest-sarif@$(SARIF_PKG_VERSION) >/dev/null && mv microsoft-jest-sarif-$(SARIF_PKG_VERSION).tgz package.tgz
	@echo "$(SARIF_PKG_SHA256)  $(@D)/package.tgz" | sha256sum -c --quiet -
	@tar -xzf $(@D)/package.tgz -C $(@D) package/lib/schemas/sarif-2.1.0-rtm.5.json
	@mv $(@D)/package/lib/schemas/sarif-2.1.0-rtm.5.json $@
	@rm -rf $(@D)/package $(@D)/package.tgz

.PHONY: test
UNIT_PKGS = $$($(GO) list ./... | grep -v /test/)

# TEST_P is how many envtest packages run at once. Two on a 2-core machine: test/deploy (about 6
# minutes, mostly waiting on its replicas and restarts) runs beside the others instead of after them;
# the suites assert no rates or wall-clock budgets, so the contention does not turn them red.
TEST_P ?= 2

test: control-plane sarif-schema picture-tools ## Unit tests (every package but test/), then the envtest suites under test/ two at a time (each against its own real kube-apiserver + etcd), then test/chart (what CI runs).
	$(GO) test -timeout 30m $(UNIT_PKGS)
	$(GO) test -p $(TEST_P) -count=1 -timeout 30m ./test/...
	cd test/chart && $(GO) test -p 1 -count=1 -timeout 30m ./...

.PHONY: picture-tools
picture-tools: $(MERMAID_DIR)/check.mjs ## Mermaid's parser (npm), which test/picture runs on the Mermaid pictures.

$(MERMAID_DIR)/check.mjs: hack/mermaid/check.mjs
	@echo ">> installing mermaid@$(MERMAID_VERSION) and jsdom@$(JSDOM_VERSION) from npm into $(MERMAID_DIR)"
	@mkdir -p $(MERMAID_DIR)
	@cd $(MERMAID_DIR) && npm install --no-audit --no-fund --silent mermaid@$(MERMAID_VERSION) jsdom@$(JSDOM_VERSION)
	@cp hack/mermaid/check.mjs $@

.PHONY: pictures
pictures: build ## Render docs/cli.md's picture of the RFC samples (docs/rfc-hierarchy.svg) with Graphviz.
	@mkdir -p docs
	$(BIN)/precedent effective -f config/samples/rfc --kind AuthPolicy -o dot | dot -Tsvg -o docs/rfc-hierarchy.svg

.PHONY: test-exhaustive
test-exhaustive: sarif-schema ## The checks make test runs on representative inputs, on all of them: every CLI view of every sample 20 times (determinism).
	$(GO) test -timeout 60m -count=1 -run '^TestDeterministic' ./cmd/precedent -args -determinism-runs 20 -determinism-all

.PHONY: unit
unit: sarif-schema ## Unit tests only, no control plane: the front doors (cmd, webhook, validate, mutate, cel, certs), profiles/<model>/..., internal/..., hack/...
	$(GO) test -timeout 30m $(UNIT_PKGS)

.PHONY: verify
verify: ## gofmt, go vet, then `make test`.
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(MAKE) test

.PHONY: bench
bench: ## Benchmarks with allocations (internal/effective, validate, webhook, internal/state, internal/reconcile, profiles/<model>/...).
	$(GO) test -run '^$$' -bench . -benchmem $(UNIT_PKGS)

# The API-server benchmarks are behind the `bench` build tag (`make test` does not run them); each
# starts its own etcd + kube-apiserver and loads 1,000 Gateways, 10,000 HTTPRoutes and 5,000
# RateLimitPolicies. BENCH_ARGS passes flags, e.g. BENCH_ARGS='-rounds 500 -scale 0.1'.
BENCH_FLAGS = -tags bench -count=1 -v -timeout 15m

.PHONY: bench-admission
bench-admission: control-plane ## Cost of admission per write on a loaded API server (none, VAP, no-op webhook, Precedent, a no-op returning Precedent's warnings), then the validating handler alone, also while routes and policies churn (in process and, TestAdmissionChurn, through the API server), and the CPU of applying one change.
	$(GO) test $(BENCH_FLAGS) -run '^TestAdmissionCost$$' ./test/bench $(if $(BENCH_ARGS),-args $(BENCH_ARGS))
	$(GO) test $(BENCH_FLAGS) -run '^TestAdmissionChurn$$' ./test/bench $(if $(BENCH_ARGS),-args $(BENCH_ARGS))
	$(GO) test -run '^$$' -bench '^BenchmarkValidate$$' -benchtime 3000x -benchmem ./webhook
	$(GO) test -run '^$$' -bench '^BenchmarkValidateCold$$' -benchtime 1000x -benchmem ./webhook
	$(GO) test -run '^$$' -bench '^BenchmarkValidateAfterChange$$' -benchtime 20x -benchmem ./webhook
	$(GO) test -run '^$$' -bench '^BenchmarkValidateFresh$$' -benchtime 3x ./webhook
	$(GO) test -run '^$$' -bench '^BenchmarkValidateUnderBigPolicy$$' -benchtime 2000x -benchmem ./webhook
	$(GO) test -run '^$$' -bench '^BenchmarkValidateStreamUnderBigPolicy$$' -benchtime 1000x -benchmem ./webhook
	$(GO) test -run '^$$' -bench '^BenchmarkValidateChurn$$' -benchtime 4s ./webhook
	$(GO) test -run '^$$' -bench '^BenchmarkApplyChange$$' -benchtime 3000x ./internal/state

.PHONY: bench-reconcile
bench-reconcile: control-plane ## Status reconciler from cold on a loaded API server: time to settle, status writes, writes in a minute of steady state; then, TestReconcileChurn, status writes per change and convergence while routes and policies change.
	$(GO) test $(BENCH_FLAGS) -run '^TestReconcileSettle$$' ./test/bench $(if $(BENCH_ARGS),-args $(BENCH_ARGS))
	$(GO) test $(BENCH_FLAGS) -run '^TestReconcileChurn$$' ./test/bench $(if $(BENCH_ARGS),-args $(BENCH_ARGS))
	$(GO) test -run '^$$' -bench '^BenchmarkReconcileUnderBigPolicy$$' -benchtime 300x -benchmem ./internal/reconcile

.PHONY: bench-scale
bench-scale: ## A replica at 1x and 10x the benchmark world: ready time (informer handlers, prepared caches, first write; the best of three replicas at each scale), live heap, route- and Gateway-level write p50/p99, and the 10x/1x ratios; then the same per profile (Envoy Gateway, kgateway, NGINX Gateway Fabric, access, mesh at 50,000 Dataplanes), as a table.
	$(GO) test -run '^$$' -bench '^BenchmarkScale(Profiles)?$$' -benchtime 1x -timeout 30m ./webhook

.PHONY: bench-offline
bench-offline: ## The CI path at real size: validate -f (also with config/kgateway's settings) and effective -o json over the generated world at 1x (16,051 objects) and 10x (160,051), and validate -f with config/nginx-gateway-fabric's over the world with its policies (26,051 and 260,051), and both profiles' validate over worlds with their policies in undated pairs (the creation-order check), wall time and peak RSS, against d6284c5's binary in the same run (but for kgateway's and NGINX Gateway Fabric's) (BENCH_ARGS='-offline-scales 1 -offline-against ""').
	$(GO) test $(BENCH_FLAGS) -timeout 60m -run '^TestOfflineScale$$' ./test/bench $(if $(BENCH_ARGS),-args $(BENCH_ARGS))

# Go minimizes each new interesting input for up to -fuzzminimizetime (default 60s) before fuzzing
# on; the engine target is slow under coverage instrumentation (Kubernetes and CEL are in it), so with
# the default both workers spend the whole run minimizing and execs stay at 0.
FUZZ_FLAGS = -run '^$$' -fuzztime $(or $(FUZZTIME),30s) -fuzzminimizetime $(or $(FUZZMINIMIZETIME),2s)

.PHONY: fuzz
fuzz: ## Run each fuzz target for FUZZTIME (default 30s): the engine end to end (validate), the admission handlers (webhook), the access and mesh parsers (profiles/<model>/engine), the incremental state against full builds (internal/state).
	$(GO) test $(FUZZ_FLAGS) -fuzz '^FuzzEngine$$' ./validate
	$(GO) test $(FUZZ_FLAGS) -fuzz '^FuzzHandle$$' ./webhook
	$(GO) test $(FUZZ_FLAGS) -fuzz '^FuzzParse$$' ./profiles/access/engine
	$(GO) test $(FUZZ_FLAGS) -fuzz '^FuzzParse$$' ./profiles/mesh/engine
	$(GO) test $(FUZZ_FLAGS) -fuzz '^FuzzIncremental$$' ./internal/state

GATEWAY_API_DIR = $(shell $(GO) list -m -f '{{.Dir}}' sigs.k8s.io/gateway-api)

.PHONY: gateway-crds
gateway-crds: ## Copy the Gateway API standard CRDs of the go.mod version into config/crd/gateway-api.
	@mkdir -p config/crd/gateway-api
	rm -f config/crd/gateway-api/*.yaml
	cp $(GATEWAY_API_DIR)/config/crd/standard/gateway.networking.k8s.io_*.yaml config/crd/gateway-api/
	rm -f config/crd/gateway-api/*_vap_*.yaml
	chmod 644 config/crd/gateway-api/*.yaml
	@echo ">> Gateway API $$($(GO) list -m -f '{{.Version}}' sigs.k8s.io/gateway-api) standard CRDs in config/crd/gateway-api"

# The chart's crds/ are the CRDs config/crd/kustomization.yaml lists, byte for byte (test/chart checks).
CHART_CRDS = $(shell sed -n 's/^- \(.*\.yaml\)$$/\1/p' config/crd/kustomization.yaml)

.PHONY: chart-crds
chart-crds: ## Copy Precedent's CRDs (config/crd) into the Helm chart's crds/.
	@mkdir -p charts/precedent/crds
	rm -f charts/precedent/crds/*.yaml
	cd config/crd && cp $(CHART_CRDS) ../../charts/precedent/crds/
	@echo ">> charts/precedent/crds: $(CHART_CRDS)"

.PHONY: generate
generate: ## Regenerate what the registered profiles and the table of checks define: config/webhook/manifests.yaml, the PrecedentConfig CRD's profile enum and status description, the chart's resource list and RBAC rules, config/rbac/role.yaml, the components' rbac.yaml and webhook.yaml, the CRDs' rules, docs/codes.md (tests fail while they are stale).
	$(GO) test ./webhook -run '^(TestManifests|TestChartResources)$$' -count=1 -update
	$(GO) test ./internal/install -run '^TestGenerated$$' -count=1 -update
	$(GO) test ./internal/vap -run '^TestCRDs$$' -count=1 -update
	$(GO) test ./cmd/precedent -run '^TestCodesTable$$' -count=1 -update
	$(GO) test ./internal/crdcheck -run '^TestBuiltinCRDsAreCurrent$$' -count=1 -update
	$(MAKE) chart-crds

# What `make run` installs: the Gateway API and Precedent CRDs, the same-shape Kuadrant and XBackend
# test CRDs, and Envoy Gateway's own CRDs from the Go module cache (the version hack/tools/envoy-gateway
# pins; never copied into the repository), so every sample set applies. DEV_FLAGS adds flags of
# `precedent dev` (e.g. DEV_FLAGS='--v 1' logs every admission; `bin/precedent dev --help` lists them).
EG_VERSION = $(shell sed -n 's|^require github.com/envoyproxy/gateway \(v[^ ]*\)$$|\1|p' hack/tools/envoy-gateway/go.mod)
EG_CRD_DIR = $(shell cd hack/tools/envoy-gateway && $(GO) mod download -json github.com/envoyproxy/gateway@$(EG_VERSION) | sed -n 's|^[[:space:]]*"Dir": "\(.*\)",$$|\1|p')/charts/gateway-helm/charts/crds/crds/generated
KGW_VERSION = $(shell sed -n 's|^require github.com/kgateway-dev/kgateway/v2 \(v[^ ]*\)$$|\1|p' hack/tools/kgateway/go.mod)
# kgateway's own TrafficPolicy CRD (its other CRDs' CEL rules exceed the API server's cost budget).
KGW_CRD = $(shell cd hack/tools/kgateway && $(GO) mod download -json github.com/kgateway-dev/kgateway/v2@$(KGW_VERSION) | sed -n 's|^[[:space:]]*"Dir": "\(.*\)",$$|\1|p')/install/helm/kgateway-crds/templates/gateway.kgateway.dev_trafficpolicies.yaml
# Every model's CRDs (folders, or a file), so every set of config/samples applies: test/dev and
# test/docs start precedent dev with these (`make run-crd-dirs` prints them).
RUN_CRD_DIRS = config/crd/gateway-api config/crd test/crds/kuadrant test/crds/xbackend test/crds/nginx-gateway-fabric $(EG_CRD_DIR) $(KGW_CRD)

.PHONY: run
run: ## Build the control plane (first time: minutes) and the binary, then run `bin/precedent dev` with every model's CRDs and samples until Ctrl-C (DEV_FLAGS='...' adds dev flags).
	@if [ ! -x $(KUBE_APISERVER) ] || [ ! -x $(ETCD) ]; then \
	  echo ">> first run on this machine: building the pinned control plane from the Go module proxy"; \
	  echo ">>   what: etcd $(ETCD_VERSION) (about 30 s) and kube-apiserver $(KUBE_VERSION) (about 5-6 minutes on 2 cores)"; \
	  echo ">>   why:  precedent dev runs a real API server and etcd locally; the binaries are cached in $(CP_DIR) and reused"; \
	fi
	@$(MAKE) --no-print-directory control-plane build
	$(BIN)/precedent dev $(foreach d,$(RUN_CRD_DIRS),--crd-dir $(d)) $(DEV_FLAGS)

.PHONY: run-crd-dirs
run-crd-dirs: ## Print the CRD folders `make run` installs, one a line (the tests that start precedent dev read them).
	@printf '%s\n' $(RUN_CRD_DIRS)
