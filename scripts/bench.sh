#!/usr/bin/env bash
# bench.sh: time `pactify validate` on a large generated log against
# `jq -c . log.jsonl` and `wc -l log.jsonl` over the same file, with peak
# memory, and print the ratios the performance targets are stated in:
#
#   validate at least 10x faster than jq, within 15x of wc -l, peak RSS
#   at most 256 MiB (for the 1M-event log, about 250 MB).
#
# Usage: scripts/bench.sh [lines]      (default 1000000)
# Environment: BENCH_DIR (default /tmp/pact-bench), RUNS (default 5),
#   SEED (default 1), DEFECTS (default 0.001).
#
# The log is deterministic (internal/loggen): the same lines, seed and defect
# rate give the same bytes. Its defects are all valid JSON (-malformed=false)
# so jq reads the whole file; validate reports them, so it exits 1. The
# .pact directory holds log.jsonl and PROJECT.md only, so validate also warns
# about every task's missing task file and the missing STATE.yml, as it
# would on a real log copied alone.
#
# Needs go, jq and GNU time (/usr/bin/time); uses hyperfine when installed
# (apt-get install -y hyperfine jq).
set -euo pipefail

lines=${1:-1000000}
dir=${BENCH_DIR:-/tmp/pact-bench}
runs=${RUNS:-5}
seed=${SEED:-1}
defects=${DEFECTS:-0.001}
root=$(cd "$(dirname "$0")/.." && pwd)

for tool in go jq /usr/bin/time; do
	command -v "$tool" >/dev/null || { echo "bench.sh: $tool is required (apt-get install -y jq time hyperfine)" >&2; exit 2; }
done

mkdir -p "$dir/bin"
(cd "$root" && go build -o "$dir/bin/pactify" ./cmd/pactify && go build -o "$dir/bin/pactgen" ./cmd/pactgen)
pactify=$dir/bin/pactify
log=$dir/pact/.pact/log.jsonl

want="$lines $seed $defects"
if [[ ! -f $log || "$(cat "$dir/pact/.params" 2>/dev/null)" != "$want" ]]; then
	rm -rf "$dir/pact"
	"$dir/bin/pactgen" -n "$lines" -seed "$seed" -defects "$defects" -malformed=false -pact "$dir/pact"
	echo "$want" >"$dir/pact/.params"
fi
size=$(stat -c %s "$log")
echo "log: $log, $lines lines, $size bytes; go $(go env GOVERSION), $(nproc) CPUs"
cat "$log" >/dev/null # warm the page cache for every command alike

validate="cd $dir/pact && $pactify validate >/dev/null"
jqcmd="jq -c . $log >/dev/null"
wccmd="wc -l $log >/dev/null"

# mean_of CMD: mean wall seconds over $runs runs (after one warm-up run).
declare -A mean
if command -v hyperfine >/dev/null; then
	hyperfine --warmup 1 --runs "$runs" -i --export-json "$dir/hyperfine.json" \
		-n validate "$validate" -n jq "$jqcmd" -n wc "$wccmd"
	for name in validate jq wc; do
		mean[$name]=$(jq -r --arg n "$name" '.results[] | select(.command == $n) | .mean' "$dir/hyperfine.json")
	done
else
	echo "hyperfine not found: $runs runs of each command under /usr/bin/time"
	for name in validate jq wc; do
		case $name in validate) cmd=$validate ;; jq) cmd=$jqcmd ;; wc) cmd=$wccmd ;; esac
		bash -c "$cmd" || true
		total=0
		for ((i = 0; i < runs; i++)); do
			/usr/bin/time -f %e -o "$dir/time.out" bash -c "$cmd" >/dev/null 2>&1 || true
			total=$(awk -v t="$total" -v x="$(tail -1 "$dir/time.out")" 'BEGIN { print t + x }')
		done
		mean[$name]=$(awk -v t="$total" -v n="$runs" 'BEGIN { print t / n }')
		printf '%-8s mean %.3f s over %d runs\n' "$name" "${mean[$name]}" "$runs"
	done
fi

# Peak memory: GNU time's maximum resident set size, best of three runs.
rss() {
	local best=
	for _ in 1 2 3; do
		local kb
		/usr/bin/time -f %M -o "$dir/time.out" bash -c "$1" >/dev/null 2>&1 || true
		kb=$(tail -1 "$dir/time.out")
		if [[ -z $best || $kb -lt $best ]]; then best=$kb; fi
	done
	echo "$best"
}
rss_validate=$(rss "$validate")
rss_jq=$(rss "$jqcmd")

awk -v v="${mean[validate]}" -v j="${mean[jq]}" -v w="${mean[wc]}" -v rv="$rss_validate" -v rj="$rss_jq" -v size="$size" 'BEGIN {
	printf "\nmean wall time: validate %.3f s, jq %.3f s, wc -l %.3f s\n", v, j, w
	printf "jq / validate     = %6.2fx  (target >= 10x: %s)\n", j / v, (j / v >= 10 ? "met" : "NOT met")
	printf "validate / wc -l  = %6.2fx  (target <= 15x: %s)\n", v / w, (v / w <= 15 ? "met" : "NOT met")
	printf "peak RSS validate = %6.1f MiB (target <= 256 MiB: %s; log %.1f MiB; jq %.1f MiB)\n", rv / 1024, (rv / 1024 <= 256 ? "met" : "NOT met"), size / 1048576, rj / 1024
}'
