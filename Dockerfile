# syntax=docker/dockerfile:1
# Build stage: a static pact-action binary from scripts/build.sh, the one
# build the release binaries and the test suite use too (internal/testkit/testbin's
# tests hold the three together). The stage runs on the builder's own
# platform and cross-compiles for the target, so a multi-arch Buildx build
# (linux/amd64, linux/arm64) needs no emulation.
#
# The base image's digest pins golang:1.26.8-bookworm (Dependabot's docker
# updates move tag and digest together); the binary is built by the Go
# patch release CI and the release workflow set up, GOTOOLCHAIN below, which
# the go command fetches from the Go module proxy and verifies against the
# checksum database, so a Go security release reaches the image without a
# new base digest (docs/decisions.md, "Which Go builds what").
FROM --platform=$BUILDPLATFORM golang:1.26.8-bookworm@sha256:dc9ad6c05acc7a88e5b71bde60a5fe3bd4b9f0db209011711b464107438a8107 AS build
ENV GOTOOLCHAIN=go1.27.3
ARG TARGETOS
ARG TARGETARCH
# The release passes its tag; `image: Dockerfile` builds report "devel".
ARG VERSION=devel
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN GOOS=$TARGETOS GOARCH=$TARGETARCH VERSION=$VERSION bash scripts/build.sh ./cmd/pact-action /out/pact-action

# Final stage: the binary and CA certificates, nothing else (scratch is no
# image, so there is no digest to pin). No USER line: GitHub runs container
# actions as root so they can read the workspace.
FROM scratch
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build /out/pact-action /pact-action
ENTRYPOINT ["/pact-action"]
