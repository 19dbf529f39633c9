# machinestatus — run `make help` for the targets.

SHELL := /usr/bin/env bash -o pipefail
.SHELLFLAGS := -ec

# Versions of the binaries built from Go modules (pinned in hack/tools/go.mod;
# golangci-lint in its own module, hack/tools/lint/go.mod; gremlins in hack/tools/mutation/go.mod;
# promtool and prometheus in hack/tools/prometheus/go.mod).
K8S_VERSION ?= v1.36.3
ETCD_VERSION ?= v3.6.8

BIN       := $(CURDIR)/bin
K8S_BIN   := $(BIN)/k8s
CONTROLLER_GEN := $(BIN)/controller-gen
KWOK      := $(BIN)/kwok
KUBECTL   := $(K8S_BIN)/kubectl
APISERVER := $(K8S_BIN)/kube-apiserver
ETCD      := $(K8S_BIN)/etcd
MANAGER   := $(BIN)/manager
CLI       := $(BIN)/machinestatus
# kubectl runs bin/kubectl-machinestatus (on the PATH) for `kubectl machinestatus`.
CLI_PLUGIN := $(BIN)/kubectl-machinestatus
# kubectl runs bin/kubectl_complete-machinestatus to complete `kubectl machinestatus <TAB>`.
CLI_PLUGIN_COMPLETION := $(BIN)/kubectl_complete-machinestatus
GOLANGCI_LINT := $(BIN)/golangci-lint
PROMTOOL  := $(BIN)/promtool
PROMETHEUS := $(BIN)/prometheus
GREMLINS  := $(BIN)/gremlins
# make mutation's "go" on gremlins' PATH (hack/tools/mutation/casecover) and its table printer.
MUTATION_GO := $(BIN)/mutation/go
MUTATION_TABLE := $(BIN)/mutation/mutationtable

TOOLS_MOD := cd hack/tools && go
LINT_MOD  := cd hack/tools/lint && go
MUTATION_MOD := cd hack/tools/mutation && go
PROMETHEUS_MOD := cd hack/tools/prometheus && go
# Prometheus's service discovery plugins (cloud SDKs, client-go) are most of its build and serve
# nothing here: rule tests and the end-to-end test's static scrape config need none.
PROMETHEUS_TAGS := remove_all_sd
K8S_LDFLAGS := -s -w \
	-X k8s.io/component-base/version.gitVersion=$(K8S_VERSION) \
	-X k8s.io/component-base/version.gitMajor=1 \
	-X k8s.io/component-base/version.gitMinor=36 \
	-X k8s.io/component-base/version.gitTreeState=clean \
	-X k8s.io/client-go/pkg/version.gitVersion=$(K8S_VERSION) \
	-X k8s.io/client-go/pkg/version.gitMajor=1 \
	-X k8s.io/client-go/pkg/version.gitMinor=36

# envtest and the embedded control plane find kube-apiserver and etcd here.
export KUBEBUILDER_ASSETS := $(K8S_BIN)
export KWOK_BIN := $(KWOK)
export KUBECTL_BIN := $(KUBECTL)

GO_TEST_FLAGS ?= -count=1
FUZZTIME ?= 1m
# make test fuzzes each target for a number of inputs, not a duration: on Go 1.26 a duration can
# fail a clean run with "context deadline exceeded" when the deadline races a busy worker
# (go.dev/issue/75804, fixed in Go 1.27); a count sets no deadline.
TEST_FUZZTIME ?= 2000x

.DEFAULT_GOAL := help

##@ General

.PHONY: help
help: ## Show this help.
	@awk 'BEGIN {FS = ":.*##"; printf "Usage: make <target>\n"} \
		/^[a-zA-Z_0-9-]+:.*?##/ { printf "  \033[36m%-16s\033[0m %s\n", $$1, $$2 } \
		/^##@/ { printf "\n\033[1m%s\033[0m\n", substr($$0, 5) }' $(MAKEFILE_LIST)

##@ Development

.PHONY: generate
generate: $(CONTROLLER_GEN) ## Generate deepcopy code for the API types (and the simulated provider's).
	$(CONTROLLER_GEN) object:headerFile=hack/boilerplate.go.txt paths="./api/..." paths="./test/infra/..."

.PHONY: manifests
manifests: $(CONTROLLER_GEN) ## Generate the CRDs and the RBAC role from markers.
	$(CONTROLLER_GEN) crd rbac:roleName=manager paths="./api/..." paths="./controllers/..." \
		output:crd:artifacts:config=config/crd/bases output:rbac:artifacts:config=config/rbac
	$(CONTROLLER_GEN) crd paths="./test/infra/..." output:crd:artifacts:config=config/samples/infra

.PHONY: fmt
fmt: ## Run gofmt on the code.
	gofmt -l -w $$(git ls-files '*.go')

.PHONY: vet
vet: ## Run go vet.
	go vet ./...

.PHONY: lint
lint: $(GOLANGCI_LINT) ## Run golangci-lint (.golangci.yml) on the module (CI runs it).
	$(GOLANGCI_LINT) run ./...

.PHONY: lint-fix
lint-fix: $(GOLANGCI_LINT) ## Run golangci-lint on the module and apply its automatic fixes (formatters included).
	$(GOLANGCI_LINT) run --fix ./...

# hack/bench is its own module with Cluster API's dependencies: linting it from a cold build
# cache costs about 5 CPU-minutes that nothing else in CI shares, so CI leaves it out.
.PHONY: lint-bench
lint-bench: $(GOLANGCI_LINT) ## Run golangci-lint on the hack/bench module (not in CI).
	cd hack/bench && $(GOLANGCI_LINT) run ./...

# test/clusterapi is its own module with Cluster API's controllers: like hack/bench, CI leaves
# it out of make lint (a cold lint compiles all of Cluster API once more).
.PHONY: lint-clusterapi
lint-clusterapi: $(GOLANGCI_LINT) ## Run golangci-lint on the test/clusterapi module (not in CI).
	cd test/clusterapi && $(GOLANGCI_LINT) run ./...

# test/prometheus is its own module with Prometheus's dependencies: like hack/bench, CI leaves it
# out of make lint.
.PHONY: lint-prometheus
lint-prometheus: $(GOLANGCI_LINT) ## Run golangci-lint on the test/prometheus module (not in CI).
	cd test/prometheus && $(GOLANGCI_LINT) run ./...

.PHONY: verify
verify: generate manifests prometheus-generate fmt ## Fail when generated files or formatting are out of date.
	@git diff --exit-code -- api config '*.go' || { echo "generated files are stale: run make generate manifests fmt"; exit 1; }

# test/internal/clusterapicrd reads Cluster API's Machine CRD from its root module, at the version
# of the API module go.mod requires: fetched here through the module proxy (a no-op once in the
# module cache), not while the tests run.
.PHONY: clusterapi-module
clusterapi-module:
	go mod download sigs.k8s.io/cluster-api@$$(go list -m -f '{{.Version}}' sigs.k8s.io/cluster-api/api)

.PHONY: test
test: runtime-tools build clusterapi-module ## Run every test against a real kube-apiserver + etcd (and kwok, kubectl), the fault tests too.
	@# Vetted once here (the faults and promserver tags included); the go test runs below skip their own vet.
	go vet -tags faults,promserver ./...
	go test $(GO_TEST_FLAGS) -vet=off ./...
	@# The fault tests mostly wait (a 30 s outage, lease expiry), so the fuzz targets' instrumented
	@# builds, then the Cluster API suite (its compile is the heavy part), run meanwhile; each
	@# one's output is printed when it ends.
	@echo "fault tests, fuzz targets, the Cluster API suite, the benchmarks', monitoring and distribution tests run side by side; each one's output appears when it ends"
	$(MAKE) --no-print-directory -j2 --output-sync=target fault-tests fuzz clusterapi-tests bench-tests prometheus-tests dist-tests FUZZTIME=$(TEST_FUZZTIME)

.PHONY: fault-tests
fault-tests:
	go test $(GO_TEST_FLAGS) -vet=off -tags faults -timeout 15m ./test/faults/

.PHONY: clusterapi-tests
clusterapi-tests:
	cd test/clusterapi && go vet ./... && go test $(GO_TEST_FLAGS) -vet=off -timeout 20m ./...

# The tests of hack/bench (not its benchmarks): both libraries reach the same verdict on every
# case, and benchtable computes the medians and renders the table and the goal lines.
.PHONY: bench-tests
bench-tests:
	cd hack/bench && go vet ./... && go test $(GO_TEST_FLAGS) -vet=off ./...

# config/prometheus (docs/alerts.md): the rule file checked and unit-tested by promtool (the tests
# users run too), then test/prometheus, a module of its own with Prometheus's dependencies: the
# generated PrometheusRule and dashboard are current, and every PromQL expression of the rules
# and of the dashboard is evaluated by Prometheus's engine over series recorded from the manager
# (test/prometheus/testdata/fleet-series.yaml; test/metrics's TestFleetSeries records it).
.PHONY: prometheus-tests
prometheus-tests: $(PROMTOOL)
	$(PROMTOOL) check rules config/prometheus/rules/machinestatus.rules.yaml
	$(PROMTOOL) test rules config/prometheus/tests/*.test.yaml
	cd test/prometheus && go vet ./... && go test $(GO_TEST_FLAGS) -vet=off ./...

# test/promserver against a real Prometheus server built from the module proxy: not in make test,
# as the server's build is the costliest of all (docs/development.md gives the figures).
.PHONY: test-prometheus
test-prometheus: runtime-tools build $(PROMETHEUS) ## Run bin/prometheus against the manager: the token scrape, the shipped rules loaded, the demo's Failed Machine alerting (test/promserver; not in make test).
	go test $(GO_TEST_FLAGS) -tags promserver -timeout 10m -v ./test/promserver/

.PHONY: prometheus-generate
prometheus-generate: ## Write config/prometheus's PrometheusRule (from its rule file) and Grafana dashboard (test/prometheus/monitoring).
	cd test/prometheus && go run ./cmd/generate

.PHONY: test-clusterapi
test-clusterapi: runtime-tools build ## Check the manager beside Cluster API's real controllers: lifecycle, MachineDeployment flows, writes, events (test/clusterapi; docs/clusterapi.md); CLUSTERAPI_WRITE_DOCS=1 records its tables there.
	$(MAKE) --no-print-directory clusterapi-tests GO_TEST_FLAGS="$(GO_TEST_FLAGS) -v"

.PHONY: test-faults
test-faults: runtime-tools build ## Run only the fault tests (docs/operating.md; ~4 min); FAULTS_WRITE_DOCS=1 records their figures there.
	go test $(GO_TEST_FLAGS) -tags faults -timeout 15m -v ./test/faults/

# Fuzz targets as package:Target (the package directory below the repository root).
FUZZ_TARGETS := conditions:FuzzValidate conditions:FuzzSet conditions:FuzzPatchApply \
	conditions:FuzzFromUnstructured status:FuzzComputeStatus aggregate:FuzzLastOperationHistory

.PHONY: fuzz
fuzz: ## Run every fuzz target for FUZZTIME each (a duration, default 1m, or a count such as 100000x; make test runs 2000x each).
	@for entry in $(FUZZ_TARGETS); do \
		pkg="./$${entry%%:*}"; target="$${entry#*:}"; \
		echo "go test -run '^$$' -fuzz '^$$target$$' -fuzztime $(FUZZTIME) $$pkg"; \
		go test -count=1 -run '^$$' -fuzz "^$$target\$$" -fuzztime $(FUZZTIME) "$$pkg" || exit 1; \
	done

##@ Benchmarks

BENCH_COUNT ?= 10

.PHONY: bench
bench: ## Benchmark NewSummaryCondition against Cluster API's, per call (hack/bench, medians of BENCH_COUNT runs, default 10); refresh docs/benchmarks.md.
	cd hack/bench && go run ./cmd/benchtable -count $(BENCH_COUNT) -doc ../../docs/benchmarks.md

##@ Mutation testing

# make mutation (docs/development.md): gremlins mutates the rule packages and prints the table.
# Each package takes minutes; not in CI. The machine is shared: MUTATION_WORKERS=1 while others build.
MUTATION_PACKAGES ?= conditions aggregate status refs
MUTATION_WORKERS ?= 2
# A mutant's test run may take this many times the coverage run (gremlins' timeout): generous,
# as the load of a shared machine changes between the coverage run and a mutant's.
MUTATION_TIMEOUT_COEFFICIENT ?= 10
# -count=1: gremlins times the coverage run for its timeout, so it must not come from the test
# cache; -vet=off: a vet finding in a mutant is not a test that fails (and vet costs CPU).
MUTATION_GOFLAGS := -count=1 -vet=off
# refs: only its pure rules are mutated (rules.go: the version rule, the freshness of answers, the
# messages and retry deadline, what the cache keeps); the rest is the machinery the controllers'
# envtest suite runs.
MUTATION_PURE_refs := rules.go
# MUTATION_FILES, when set, mutates only those files of each package (e.g. MUTATION_PACKAGES=aggregate
# MUTATION_FILES="phase.go summarize.go"): a partial run, or one package split between runs.
MUTATION_FILES ?=
mutation_space := $(subst ,, )
mutation_sources = $(filter-out %_test.go,$(notdir $(wildcard $(1)/*.go)))
mutation_include = $(or $(MUTATION_FILES),$(MUTATION_PURE_$(1)),$(call mutation_sources,$(1)))
mutation_exclude = ^($(subst $(mutation_space),|,$(strip $(subst .go,,$(filter-out $(call mutation_include,$(1)),$(call mutation_sources,$(1)))))))\.go$$

.PHONY: mutation
mutation: $(GREMLINS) $(MUTATION_GO) $(MUTATION_TABLE) ## Mutation-test the rule packages (conditions, aggregate, status, refs' rules); print the table (minutes per package).
	@real_go="$$(command -v go)"; \
	$(foreach pkg,$(MUTATION_PACKAGES),echo "gremlins unleash ./$(pkg) ($(call mutation_include,$(pkg)))"; \
		PATH="$(BIN)/mutation:$$PATH" MUTATION_GO="$$real_go" GOFLAGS="$$GOFLAGS $(MUTATION_GOFLAGS)" \
			$(GREMLINS) unleash --workers $(MUTATION_WORKERS) --timeout-coefficient $(MUTATION_TIMEOUT_COEFFICIENT) \
			--exclude-files '$(call mutation_exclude,$(pkg))' \
			--output $(BIN)/mutation/$(pkg).json ./$(pkg) || exit 1;) true
	@$(MUTATION_TABLE) $(patsubst %,$(BIN)/mutation/%.json,$(MUTATION_PACKAGES))

##@ Run

.PHONY: demo
demo: runtime-tools build ## Walk Machines through every phase on an embedded control plane with kwok.
	go run ./test/demo

.PHONY: demo-clusterapi
demo-clusterapi: runtime-tools build ## Show a Cluster API Machine under Cluster API's own controllers with our phase and lastOperation beside Cluster API's view.
	cd test/clusterapi && go run ./cmd/demo

N ?= 1000
MACHINE_APIS ?= machinestatus.io
# The metrics' cost is measured against the manager of this commit: the last one without the
# per-Machine series whose manager builds (machinestatus.io only; empty: not measured).
METRICS_BASELINE ?= 2b91e2b
.PHONY: bench-scale
bench-scale: runtime-tools build ## Fleet-scale measurement with N Machines (default 1000; MACHINE_APIS=cluster.x-k8s.io for the Cluster API mode), the metrics' cost against METRICS_BASELINE's manager; records docs/benchmarks.md.
	go run ./test/scale/bench-scale -n $(N) -machine-apis $(MACHINE_APIS) -baseline-commit '$(METRICS_BASELINE)' -write-docs

# Its own module (test/clusterapi), so that the main module never requires Cluster API's
# controllers; built, then run, as it starts itself again as Cluster API's controllers' process.
.PHONY: bench-clusterapi-scale
bench-clusterapi-scale: runtime-tools build ## Cluster API's real Machine, MachineSet and MachineDeployment controllers beside our manager with N Machines (default 200): writes, CPU, memory, lag; records docs/benchmarks.md.
	cd test/clusterapi && go build -o $(BIN)/bench-clusterapi-scale ./cmd/bench-scale
	$(BIN)/bench-clusterapi-scale -n $(if $(filter command line,$(origin N)),$(N),200) -write-docs

.PHONY: bench-cli
bench-cli: runtime-tools build clusterapi-module ## Time get -A and the pool view beside kubectl get with N Machines of each API (default 5000, also N/5); records docs/benchmarks.md.
	go run ./test/cli/bench-cli -n $(if $(filter command line,$(origin N)),$(N),5000) -write-docs

.PHONY: build
build: ## Build bin/manager and the CLI bin/machinestatus (also the kubectl plugin bin/kubectl-machinestatus and its completion bin/kubectl_complete-machinestatus).
	go build -ldflags "$(VERSION_LDFLAGS)" -o $(MANAGER) ./cmd/manager
	go build -ldflags "$(VERSION_LDFLAGS)" -o $(CLI) ./cmd/machinestatus
	ln -f $(CLI) $(CLI_PLUGIN)
	ln -f $(CLI) $(CLI_PLUGIN_COMPLETION)

.PHONY: run
run: build ## Run the manager against the cluster in the current kubeconfig.
	$(MANAGER)

.PHONY: run-embedded
# ARGS are extra manager flags, e.g. ARGS=--zap-log-level=debug.
run-embedded: runtime-tools build ## Run bin/manager against its own local kube-apiserver + etcd (hack/run-embedded; Ctrl-C stops both).
	@# Built, then run (not `go run`, which exits 1 when Ctrl-C reaches it).
	go build -o $(BIN)/run-embedded ./hack/run-embedded
	$(BIN)/run-embedded -manager $(MANAGER) -- $(ARGS)

.PHONY: install
install: $(KUBECTL) ## Install the CRDs into the cluster in the current kubeconfig.
	$(KUBECTL) apply --server-side -k config/crd

.PHONY: uninstall
uninstall: $(KUBECTL) ## Remove the CRDs from the cluster in the current kubeconfig.
	$(KUBECTL) delete --ignore-not-found -k config/crd

# The manager image: what docker-build tags and deploy runs (config/manager names the default).
IMG ?= machinestatus-manager:latest
CONTAINER_TOOL ?= docker

.PHONY: docker-build
docker-build: ## Build the manager image IMG=... from the Dockerfile (CONTAINER_TOOL=docker).
	$(CONTAINER_TOOL) build --build-arg VERSION=$(VERSION) --build-arg REVISION=$(REVISION) -t $(IMG) .

.PHONY: docker-push
docker-push: ## Push the manager image IMG=... to its registry.
	$(CONTAINER_TOOL) push $(IMG)

.PHONY: deploy
# DEPLOY_DIR=config/clusterapi deploys the manager for Cluster API Machines (docs/clusterapi.md).
DEPLOY_DIR ?= config/default
deploy: $(KUBECTL) ## Deploy CRDs, RBAC and the manager (IMG=...; DEPLOY_DIR=config/clusterapi for Cluster API) to the current cluster.
	$(KUBECTL) kustomize $(DEPLOY_DIR) | sed 's#image: machinestatus-manager:latest#image: $(IMG)#' | $(KUBECTL) apply --server-side -f -

.PHONY: undeploy
undeploy: $(KUBECTL) ## Remove everything `make deploy` created.
	$(KUBECTL) delete --ignore-not-found -k $(DEPLOY_DIR)

##@ Distribution

# VERSION (docs/install.md): the nearest v* tag by `git describe` (v0.1.0, v0.1.0-3-g1a2b3c4d past
# it, -dirty with local changes), else the VERSION file; stamped into the binaries and the image.
ifeq ($(origin VERSION),undefined)
VERSION := $(shell git describe --tags --match 'v[0-9]*' --dirty 2>/dev/null || cat $(CURDIR)/VERSION)
endif
ifeq ($(origin REVISION),undefined)
REVISION := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
endif
VERSION_PKG := github.com/machinestatus/machinestatus/internal/version
VERSION_LDFLAGS = -X $(VERSION_PKG).Version=$(VERSION) -X $(VERSION_PKG).Revision=$(REVISION)
# Where the artifacts go (git-ignored but for the committed chart, which lives in CHART_DIR).
DIST ?= $(CURDIR)/dist
CHART_DIR := $(CURDIR)/dist/chart
# The image the release manifests, the chart's default and the clusterctl components name.
IMAGE_REPO ?= ghcr.io/machinestatus/machinestatus-manager
RELEASE_IMG ?= $(IMAGE_REPO):$(VERSION)
# Where the plugin's archives are downloaded from (the krew manifest's URIs).
RELEASE_URL ?= https://github.com/machinestatus/machinestatus/releases/download/$(VERSION)
IMAGE_PLATFORMS ?= linux/amd64 linux/arm64
RELEASE_PLATFORMS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
RELEASE_TOOL := $(BIN)/release
# krew (hack/tools/krew) checks the plugin's manifest and installs its archives in the tests.
KREW := $(BIN)/kubectl-krew
KREW_VALIDATE := $(BIN)/validate-krew-manifest
KREW_MOD := cd hack/tools/krew && go
SOURCE_URL := https://github.com/machinestatus/machinestatus

.PHONY: version
version: ## Print the version the binaries are stamped with.
	@echo $(VERSION)

.PHONY: image
image: ## Build the manager's OCI image (IMAGE_PLATFORMS) without Docker: DIST/image (OCI layout) and DIST/image.oci.tar.
	cd hack/release && go build -o $(RELEASE_TOOL) ./cmd/release
	@for p in $(IMAGE_PLATFORMS); do \
		echo "go build ./cmd/manager for $$p"; \
		CGO_ENABLED=0 GOOS=$${p%/*} GOARCH=$${p#*/} go build -trimpath -ldflags "-s -w $(VERSION_LDFLAGS)" \
			-o $(DIST)/image-bin/$${p%/*}_$${p#*/}/manager ./cmd/manager || exit 1; \
	done
	$(RELEASE_TOOL) image -binaries $(DIST)/image-bin -platforms "$(IMAGE_PLATFORMS)" -version $(VERSION) \
		-revision $(REVISION) -source $(SOURCE_URL) -layout $(DIST)/image -tarball $(DIST)/image.oci.tar

.PHONY: release
release: ## Cross-compile kubectl-machinestatus (RELEASE_PLATFORMS) into DIST/release: archives, checksums.txt, krew manifest.
	cd hack/release && go build -o $(RELEASE_TOOL) ./cmd/release
	@rm -rf $(DIST)/release $(DIST)/release-bin
	@for p in $(RELEASE_PLATFORMS); do \
		ext=; [ "$${p%/*}" = windows ] && ext=.exe; \
		echo "go build ./cmd/machinestatus for $$p"; \
		CGO_ENABLED=0 GOOS=$${p%/*} GOARCH=$${p#*/} go build -trimpath -ldflags "-s -w $(VERSION_LDFLAGS)" \
			-o $(DIST)/release-bin/$${p%/*}_$${p#*/}/kubectl-machinestatus$$ext ./cmd/machinestatus || exit 1; \
	done
	$(RELEASE_TOOL) plugin -binaries $(DIST)/release-bin -platforms "$(RELEASE_PLATFORMS)" -version $(VERSION) \
		-license LICENSE -url $(RELEASE_URL) -homepage $(SOURCE_URL) -out $(DIST)/release

.PHONY: build-installer
build-installer: $(KUBECTL) ## Write DIST/install.yaml and DIST/install-clusterapi.yaml (config/default, config/clusterapi) with RELEASE_IMG.
	@mkdir -p $(DIST)
	$(KUBECTL) kustomize config/default | sed 's#image: machinestatus-manager:latest#image: $(RELEASE_IMG)#' > $(DIST)/install.yaml
	$(KUBECTL) kustomize config/clusterapi | sed 's#image: machinestatus-manager:latest#image: $(RELEASE_IMG)#' > $(DIST)/install-clusterapi.yaml

.PHONY: clusterctl
clusterctl: $(KUBECTL) ## Write clusterctl's add-on provider repository: DIST/clusterctl/addon-machinestatus/VERSION/{addon-components,metadata}.yaml.
	@rm -rf $(DIST)/clusterctl && mkdir -p $(DIST)/clusterctl/addon-machinestatus/$(VERSION)
	$(KUBECTL) kustomize config/clusterctl | sed 's#image: machinestatus-manager:latest#image: $(RELEASE_IMG)#' \
		> $(DIST)/clusterctl/addon-machinestatus/$(VERSION)/addon-components.yaml
	cp metadata.yaml $(DIST)/clusterctl/addon-machinestatus/$(VERSION)/metadata.yaml

.PHONY: helm-chart
helm-chart: $(KUBECTL) ## Regenerate the Helm chart dist/chart from `kubectl kustomize` of config/default and config/clusterapi.
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	$(KUBECTL) kustomize config/default > $$tmp/default.yaml && \
	$(KUBECTL) kustomize config/clusterapi > $$tmp/clusterapi.yaml && \
	go run ./hack/helmgen -default $$tmp/default.yaml -clusterapi $$tmp/clusterapi.yaml \
		-rules config/prometheus/rules/machinestatus.rules.yaml -version "$$(cat VERSION)" -image-repository $(IMAGE_REPO) -out $(CHART_DIR)

.PHONY: dist
dist: image release build-installer clusterctl ## Build every artifact above into DIST (the chart is committed: make helm-chart).

# hack/release and test/helm are modules of their own (go-containerregistry; Helm's SDK, which
# needs newer Kubernetes modules than Cluster API lets the main module have).
.PHONY: dist-tests
dist-tests: $(KREW) $(KREW_VALIDATE)
	@# With stand-in binaries; RELEASE_TEST_MAKE=1 (make test-dist) runs make image and make
	@# release too, which cross-compile the manager and the plugin: about 12 CPU-minutes cold.
	cd hack/release && go vet ./... && RELEASE_TEST_MAKE=$(RELEASE_TEST_MAKE) go test $(GO_TEST_FLAGS) -vet=off -timeout 30m ./...
	@# The chart's lint and templates only: test/helm/install compiles all of Helm's SDK (make test-helm).
	cd test/helm && go vet ./chart/... ./internal/... && go test $(GO_TEST_FLAGS) -vet=off ./chart/...

# test/helm/install compiles twice what test/helm/chart does (Helm's action package, its kube
# client, a control plane at k8s.io v0.37): about 5 more CPU-minutes from a cold cache, so CI
# leaves it out of make test.
.PHONY: test-helm
test-helm: runtime-tools build $(KREW) ## Install, upgrade and uninstall the chart with Helm's SDK on an embedded control plane, run docs/install.md's commands (not in CI).
	cd test/helm && go vet ./... && go test $(GO_TEST_FLAGS) -v -timeout 20m ./...

.PHONY: test-dist
test-dist: runtime-tools build ## Run every distribution test: make test's, make image's and make release's (~12 CPU-min cold), make test-helm's.
	$(MAKE) --no-print-directory dist-tests GO_TEST_FLAGS="$(GO_TEST_FLAGS) -v" RELEASE_TEST_MAKE=1
	$(MAKE) --no-print-directory test-helm

.PHONY: lint-dist
lint-dist: $(GOLANGCI_LINT) ## Run golangci-lint on the hack/release and test/helm modules (not in CI).
	cd hack/release && $(GOLANGCI_LINT) run ./...
	cd test/helm && $(GOLANGCI_LINT) run ./...

$(KREW):
	$(KREW_MOD) build -ldflags "-s -w" -o $@ sigs.k8s.io/krew/cmd/krew

$(KREW_VALIDATE):
	$(KREW_MOD) build -ldflags "-s -w" -o $@ sigs.k8s.io/krew/cmd/validate-krew-manifest

##@ Tools (each built from the Go module proxy only when missing)

.PHONY: tools
tools: ## Build every tool into bin/ (in parallel; each only when missing).
	@$(MAKE) --no-print-directory -j2 $(CONTROLLER_GEN) $(KWOK) $(KUBECTL) $(APISERVER) $(ETCD) $(GOLANGCI_LINT)

.PHONY: runtime-tools
runtime-tools: ## Build only what the demo and the tests run: kube-apiserver, etcd, kubectl, kwok.
	@$(MAKE) --no-print-directory -j2 $(KWOK) $(KUBECTL) $(APISERVER) $(ETCD)

$(CONTROLLER_GEN):
	$(TOOLS_MOD) build -o $@ sigs.k8s.io/controller-tools/cmd/controller-gen

$(KWOK):
	$(TOOLS_MOD) build -ldflags "-s -w" -o $@ sigs.k8s.io/kwok/cmd/kwok

$(KUBECTL):
	$(TOOLS_MOD) build -ldflags "$(K8S_LDFLAGS)" -o $@ k8s.io/kubernetes/cmd/kubectl

$(APISERVER):
	$(TOOLS_MOD) build -ldflags "$(K8S_LDFLAGS)" -o $@ k8s.io/kubernetes/cmd/kube-apiserver

$(ETCD):
	$(TOOLS_MOD) build -ldflags "-s -w" -o $@ go.etcd.io/etcd/server/v3

.PHONY: prometheus-tools
prometheus-tools: $(PROMTOOL) $(PROMETHEUS) ## Build bin/promtool and bin/prometheus (pinned in hack/tools/prometheus/go.mod; each only when missing).

$(PROMTOOL):
	$(PROMETHEUS_MOD) build -tags $(PROMETHEUS_TAGS) -ldflags "-s -w" -o $@ github.com/prometheus/prometheus/cmd/promtool

$(PROMETHEUS):
	$(PROMETHEUS_MOD) build -tags $(PROMETHEUS_TAGS) -ldflags "-s -w" -o $@ github.com/prometheus/prometheus/cmd/prometheus

$(GOLANGCI_LINT):
	$(LINT_MOD) build -ldflags "-s -w" -o $@ github.com/golangci/golangci-lint/v2/cmd/golangci-lint

$(GREMLINS):
	$(MUTATION_MOD) build -ldflags "-s -w" -o $@ github.com/go-gremlins/gremlins/cmd/gremlins

$(MUTATION_GO):
	$(MUTATION_MOD) build -o $@ ./casecover

$(MUTATION_TABLE):
	$(MUTATION_MOD) build -o $@ ./mutationtable
