#!/usr/bin/env bash
# The one build of every shipped binary. The release's binaries
# (.github/workflows/release.yml), the image's entrypoint (Dockerfile) and
# the binaries the tests run (internal/testkit/testbin) all come from here, so they
# are built alike; internal/testkit/testbin's tests hold every caller to it.
#
#   VERSION=v1.2.3 GOOS=linux GOARCH=arm64 scripts/build.sh ./cmd/pact-action dist/pact-action
#
# Static (no cgo), reproducible paths (-trimpath), stripped (-s -w), and
# VERSION (default "devel") linked in as what --version and SARIF report.
# GOOS and GOARCH, when set, cross-compile. OUTPUT is relative to the
# repository root.
set -euo pipefail
if [[ $# -ne 2 ]]; then
  echo "usage: [VERSION=v1.2.3] [GOOS=linux] [GOARCH=arm64] $0 PACKAGE OUTPUT" >&2
  exit 2
fi
cd "$(dirname "$0")/.."
export CGO_ENABLED=0
exec go build -trimpath \
  -ldflags="-s -w -X github.com/pact-action/pact-action/internal/version.version=${VERSION:-devel}" \
  -o "$2" "$1"
