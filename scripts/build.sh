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
#
# TEST_BUILD=1 (internal/testkit/testbin, for the end-to-end tests) keeps
# the caller's cgo setting and full paths: the two flags that change how
# the standard library and every module compile, so the test binaries link
# what `go test` compiled already rather than compiling all of it a second
# time (about 55 s of CPU on a cold build cache, a quarter of a cold
# `go test ./...`). Packages, version and stripping are the release's;
# `.ci/run` builds the release itself and compares the two.
set -euo pipefail
if [[ $# -ne 2 ]]; then
  echo "usage: [VERSION=v1.2.3] [GOOS=linux] [GOARCH=arm64] $0 PACKAGE OUTPUT" >&2
  exit 2
fi
cd "$(dirname "$0")/.."
trimpath=-trimpath
if [[ ${TEST_BUILD:-} == 1 ]]; then
  trimpath=
else
  export CGO_ENABLED=0
fi
# $trimpath unquoted: when empty it is no argument (bash 3.2, macOS's,
# refuses an empty array under set -u).
exec go build $trimpath \
  -ldflags="-s -w -X github.com/pact-action/pact-action/internal/version.version=${VERSION:-devel}" \
  -o "$2" "$1"
