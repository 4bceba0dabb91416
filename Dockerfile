# syntax=docker/dockerfile:1
# Build stage: a static pact-action binary, built exactly as the test suite
# builds it (CGO_ENABLED=0, -trimpath, ./cmd/pact-action); a test holds the
# two together.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/pact-action ./cmd/pact-action

# Final stage: the binary and CA certificates, nothing else. No USER line:
# GitHub runs container actions as root so they can read the workspace.
FROM scratch
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build /out/pact-action /pact-action
ENTRYPOINT ["/pact-action"]
