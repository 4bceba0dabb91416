#!/usr/bin/env bash
# Points action.yml at a published image, on a release commit only:
#
#   scripts/pin-image.sh ghcr.io/pact-action/pact-action@sha256:<64 hex> [action.yml]
#
# turns the one `image: Dockerfile` line into `image: docker://<ref>`, so a
# job pulls the prebuilt image instead of compiling it. main keeps
# `image: Dockerfile` for development.
set -euo pipefail
if [[ $# -lt 1 || $# -gt 2 ]]; then
  echo "usage: $0 IMAGE@sha256:DIGEST [ACTION_YML]" >&2
  exit 2
fi
ref=$1 file=${2:-$(dirname "$0")/../action.yml}
if [[ ! $ref =~ ^[a-z0-9][a-z0-9./_-]*@sha256:[0-9a-f]{64}$ ]]; then
  echo "$0: $ref is not IMAGE@sha256:<64 hex digits>" >&2
  exit 2
fi
n=$(grep -c '^  image: Dockerfile$' "$file" || true)
if [[ $n != 1 ]]; then
  echo "$0: $file must have exactly one '  image: Dockerfile' line, has $n" >&2
  exit 1
fi
sed -i "s|^  image: Dockerfile\$|  image: docker://${ref}|" "$file"
