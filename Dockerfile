# The manager image (`make docker-build IMG=...`): a static binary on distroless, run as
# UID/GID 65532. Only the manager is built and copied; the command-line tools stay out.
FROM golang:1.26 AS builder
ARG TARGETOS
ARG TARGETARCH
WORKDIR /workspace
# Modules first: this layer is reused until go.mod or go.sum change.
COPY go.mod go.sum ./
RUN go mod download
# The packages ./cmd/manager is built from (test/deploy checks this list against `go list -deps`).
COPY cmd/manager/ cmd/manager/
COPY api/ api/
COPY aggregate/ aggregate/
COPY conditions/ conditions/
COPY controllers/ controllers/
COPY refs/ refs/
COPY status/ status/
COPY internal/ internal/
# make docker-build passes the version `make version` prints (docs/install.md) and the commit.
ARG VERSION=v0.0.0-dev
ARG REVISION=unknown
RUN CGO_ENABLED=0 GOOS=${TARGETOS:-linux} GOARCH=${TARGETARCH} \
	go build -trimpath -ldflags "-s -w -X github.com/machinestatus/machinestatus/internal/version.Version=${VERSION} -X github.com/machinestatus/machinestatus/internal/version.Revision=${REVISION}" \
	-o /out/manager ./cmd/manager

FROM gcr.io/distroless/static:nonroot
COPY --from=builder /out/manager /manager
USER 65532:65532
ENTRYPOINT ["/manager"]
