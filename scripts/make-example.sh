#!/usr/bin/env bash
# Regenerates examples/demo with pactify at fixed timestamps. Event ids are
# random, so the log differs byte for byte from run to run, never in meaning.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(mktemp -d)/pactify
(cd "$root" && go build -o "$bin" ./cmd/pactify)
demo="$root/examples/demo"
rm -rf "$demo/.pact" "$demo/CLAUDE.md" "$demo/AGENTS.md"
mkdir -p "$demo"
cd "$demo"
# No git HEAD to record on accept: the example is not its own repository.
export GIT_DIR=/nonexistent
p() { local who=$1 at=$2; shift 2; PACT_AGENT_ID=$who PACT_NOW=$at "$bin" "$@"; }
p claude-opus 2026-06-09T10:00:00Z init --project demo --seat claude-opus:orchestrator,reviewer:CLAUDE.md --seat opencode:worker:AGENTS.md --seat codex:worker,reviewer:AGENTS.md
p claude-opus 2026-06-09T10:05:00Z assign T1 --feature LOGIN --branch feat/login --owner opencode --reviewer claude-opus
p claude-opus 2026-06-09T10:06:00Z assign T2 --feature LOGIN --branch feat/login --owner codex --reviewer claude-opus
p claude-opus 2026-06-09T10:07:00Z assign T3 --feature SIGNUP --branch feat/signup --owner opencode --reviewer codex
p opencode 2026-06-09T10:10:00Z join opencode --roles worker
p codex 2026-06-09T10:11:00Z join codex --roles worker,reviewer
p opencode 2026-06-09T11:00:00Z checkpoint T1 --evidence "login form and session cookie; go test ./... passes"
p claude-opus 2026-06-09T11:30:00Z changes T1 --reason "handle the expired-session redirect"
p opencode 2026-06-09T12:00:00Z checkpoint T1 --evidence "expired sessions redirect to /login; test added"
p claude-opus 2026-06-09T12:10:00Z accept T1
p codex 2026-06-09T12:20:00Z checkpoint T2 --evidence "rate limiting on /login, 5 tries per minute"
p claude-opus 2026-06-09T12:40:00Z accept T2
p opencode 2026-06-09T13:00:00Z checkpoint T3 --evidence "signup form; email verification pending"
"$bin" validate
# The local-preview tests judge the example against base logs cut from it.
head -3 "$demo/.pact/log.jsonl" > "$root/cmd/pact-action/testdata/base-prefix.jsonl"
sed '2s/LOGIN/LOGOUT/' "$root/cmd/pact-action/testdata/base-prefix.jsonl" > "$root/cmd/pact-action/testdata/base-rewritten.jsonl"
