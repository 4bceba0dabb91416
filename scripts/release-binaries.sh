#!/usr/bin/env bash
# Builds the release's binaries — pactify and pact-action for linux, darwin
# and windows on amd64 and arm64 — with scripts/build.sh, and writes their
# SHA256SUMS:
#
#   scripts/release-binaries.sh v1.2.3 dist
#
# TARGETS (space-separated GOOS/GOARCH) narrows the platforms; the tests
# build the host's only. `scripts/release-binaries.sh --targets` prints the
# platforms a release ships (.ci/run builds and vets each).
set -euo pipefail
all="linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64"
if [[ $# -eq 1 && $1 == --targets ]]; then
  echo "$all"
  exit 0
fi
if [[ $# -ne 2 ]]; then
  echo "usage: [TARGETS='linux/amd64 ...'] $0 VERSION OUTDIR" >&2
  exit 2
fi
version=$1 out=$2
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
for target in ${TARGETS:-$all}; do
  goos=${target%/*} goarch=${target#*/} ext=
  if [[ $goos == windows ]]; then ext=.exe; fi
  for cmd in pactify pact-action; do
    VERSION=$version GOOS=$goos GOARCH=$goarch \
      "$root/scripts/build.sh" "./cmd/$cmd" "$out/${cmd}_${version}_${goos}_${goarch}${ext}"
  done
done
cd "$out"
find . -maxdepth 1 -type f \( -name 'pactify_*' -o -name 'pact-action_*' \) -printf '%f\n' | LC_ALL=C sort | xargs sha256sum -- > SHA256SUMS
