#!/usr/bin/env bash
# bench.sh: time `pactify validate` and the writing verbs on realistic
# generated repositories against `jq -c . .pact/log.jsonl > /dev/null` over
# the same log, with each command's peak memory, and print the ratios the
# performance targets are stated in (issues 9 and 24):
#
#   validate at least 6x faster than jq (4x at 10k events); every writing
#   verb no slower than validate; peak RSS at most 256 MiB at 1M events;
#   time per event within 1.5x from 10k to 2M events.
#
# Usage: scripts/bench.sh [sizes...]     (default: 10000 100000 1000000 2000000)
# Environment: BENCH_DIR (default /tmp/pact-bench), RUNS (rounds, default 5),
#   SEED (default 1), BASE (a git revision: see below).
#
# BASE=<rev> (e.g. BASE=main) also builds the pactify of that revision (its
# tree exported with git archive into a temporary directory) and runs it in
# the same rounds as this tree's, each verb's two runs next to each other
# (in alternating order from round to round), then prints for every verb
# the median of the per-round new/base ratios: "no measured regression" is
# a claim about that column.
#
# Each repository is deterministic (internal/testkit/loggen/repogen, via tools/pactgen):
# log.jsonl without defects (so validate exits 0 and jq reads every line),
# STATE.yml exactly as `pactify log --replay` writes it, PROJECT.md, and a
# task file per task exactly as `pactify assign` writes it. The writing
# verbs run on a copy of .pact (its task files hard links), restored before
# every run by hyperfine's --prepare: join is a seat joining again, assign a
# new task, accept the reviewer's accept of a task awaiting review,
# log-replay rebuilds a STATE.yml that lost its second half. The copy is a
# git repository, as a pact's is, so the writers keep their snapshot of the
# replay (docs/pactify.md). The restore puts back the log (its size and
# time) and STATE.yml, but cannot put back the log's change time, which the
# snapshot's key holds, so each writer's prepare then makes one untimed
# write (a seat joining again) with the binary under test: every timed
# writer starts where the previous write of an agent left it. (At 10k
# events that write and its snapshot sometimes fall in one tick of the file
# system's clock, and the timed writer replays: the racy-clean rule.) The
# first write of the copy (a writer without a usable snapshot: the replay
# and the snapshot written) is timed once, as cold.
#
# The machine may be shared, so absolute times are noisy: the commands run
# interleaved, one run of each per round (a hyperfine invocation with
# --runs 1; below 100k events, where a command takes a few milliseconds,
# the mean of 10 runs), and the ratios are the medians of the ratios within
# a round. Every prepare ends with sync, so that no timed command's fsync
# writes out the file system's dirty pages of the prepare (the restore
# copies a STATE.yml of up to 85 MB; on ext4 a command's fsync commits the
# journal, which first writes those out). Peak RSS is GNU time's maximum
# resident set size, the most over the rounds.
#
# Needs go; installs hyperfine, jq and GNU time from Debian packages when
# they are missing (as root). CI does not run this script.
set -euo pipefail

sizes=("$@")
if [[ ${#sizes[@]} -eq 0 ]]; then sizes=(10000 100000 1000000 2000000); fi
dir=${BENCH_DIR:-/tmp/pact-bench}
runs=${RUNS:-5}
seed=${SEED:-1}
root=$(cd "$(dirname "$0")/.." && pwd)

need=()
command -v hyperfine >/dev/null || need+=(hyperfine)
command -v jq >/dev/null || need+=(jq)
[[ -x /usr/bin/time ]] || need+=(time)
if [[ ${#need[@]} -gt 0 ]]; then
	echo "bench.sh: installing ${need[*]} from Debian packages" >&2
	apt-get update -qq && apt-get install -y -qq "${need[@]}" >/dev/null
fi
command -v go >/dev/null || { echo "bench.sh: go is required" >&2; exit 2; }

mkdir -p "$dir/bin"
(cd "$root" && go build -o "$dir/bin/pactify" ./cmd/pactify && go build -o "$dir/bin/pactgen" ./tools/pactgen)
pactify=$dir/bin/pactify
base=${BASE:-}
if [[ -n $base ]]; then
	src=$(mktemp -d)
	trap 'rm -rf "$src"' EXIT
	git -C "$root" archive --format=tar "$base" | tar -x -C "$src"
	(cd "$src" && go build -o "$dir/bin/pactify-base" ./cmd/pactify)
	echo "base: $base = $(git -C "$root" rev-parse --short "$base"), new: $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD || echo ' with uncommitted changes')"
fi
echo "go $(go env GOVERSION), $(nproc) CPUs, $runs rounds; load:$(uptime | sed 's/.*load average://')"

results=$dir/results.tsv
: >"$results"

for n in "${sizes[@]}"; do
	per=1
	((n >= 100000)) || per=10
	repo=$dir/repo-$n
	want="$n $seed $(cd "$root" && git rev-parse HEAD:internal/testkit/loggen 2>/dev/null || echo unknown)"
	if [[ ! -f $repo/.params || "$(cat "$repo/.params")" != "$want" ]]; then
		rm -rf "$repo"
		"$dir/bin/pactgen" -n "$n" -seed "$seed" -pact "$repo"
		echo "$want" >"$repo/.params"
	fi
	log=$repo/.pact/log.jsonl
	echo
	echo "== $n events: log $(stat -c %s "$log") bytes, STATE.yml $(stat -c %s "$repo/.pact/STATE.yml") bytes, $(find "$repo/.pact/tasks" -name '*.md' | wc -l) task files"

	# The writers' copy, and the command that puts it back as it was.
	work=$dir/work-$n
	rm -rf "$work" && mkdir -p "$work/.pact"
	cp "$log" "$repo/.pact/STATE.yml" "$repo/.pact/PROJECT.md" "$work/.pact/"
	# tasks/ as a directory of hard links: pactify refuses a linked tasks/,
	# and a writer replaces a file by renaming a new one over it, so the
	# originals are never written.
	cp -al "$repo/.pact/tasks" "$work/.pact/tasks"
	git init -q "$work"
	cat "$log" >/dev/null # warm the page cache for every command alike
	# The first write: no snapshot yet.
	(cd "$work" && PACT_AGENT_ID=lead /usr/bin/time -f "%e s, %M KiB" -o "$dir/cold-$n.txt" "$pactify" assign BENCH-0 --feature BENCH --branch feat/bench --owner opencode --reviewer codex >/dev/null)
	echo "cold write (assign without a snapshot: replay, then the snapshot written): $(cat "$dir/cold-$n.txt")"
	saved=$dir/saved-$n
	rm -rf "$saved" && mkdir -p "$saved"
	cp "$work/.pact/STATE.yml" "$saved/STATE.yml"
	touch -r "$work/.pact/log.jsonl" "$saved/log-time"
	size=$(stat -c %s "$work/.pact/log.jsonl")
	restore="truncate -s $size $work/.pact/log.jsonl && touch -r $saved/log-time $work/.pact/log.jsonl && cp $saved/STATE.yml $work/.pact/STATE.yml && rm -f $work/.pact/tasks/BENCH-1.md $work/.git/pactify/*.snap"
	stale="$restore && truncate -s $(($(stat -c %s "$saved/STATE.yml") / 2)) $work/.pact/STATE.yml"
	# A task awaiting review, and its reviewer, for accept.
	read -r atask areviewer < <(awk '/^tasks:/ { t = 1; next } t && /^  - id: / { id = $3 } t && /^    reviewer: / { rv = $2 } t && /^    status: awaiting_review$/ { print id, rv; exit }' "$saved/STATE.yml")

	names=(jq validate join assign accept log-replay)
	timed() { echo "/usr/bin/time -f %M -a -o $dir/rss-$n-$1.txt $2"; }
	# verbs NAME PACTIFY: the five commands of pactify binary PACTIFY, their
	# peak RSS recorded under NAME-<verb>.
	verbs() {
		cmds+=(
			"cd $repo && $(timed "$1validate" "$2 validate") >/dev/null"
			"cd $work && PACT_AGENT_ID=opencode $(timed "$1join" "$2 join opencode --roles worker") >/dev/null"
			"cd $work && PACT_AGENT_ID=lead $(timed "$1assign" "$2 assign BENCH-1 --feature BENCH --branch feat/bench --owner opencode --reviewer codex") >/dev/null"
			"cd $work && PACT_AGENT_ID=$areviewer $(timed "$1accept" "$2 accept $atask") >/dev/null"
			"cd $work && PACT_AGENT_ID=lead $(timed "$1log-replay" "$2 log --replay") >/dev/null"
		)
	}
	cmds=("$(timed jq "jq -c . $log") >/dev/null")
	verbs "" "$pactify"
	# prepare PACTIFY: the five commands' prepares for binary PACTIFY; a
	# writer's ends with the write that leaves that binary's snapshot.
	prepare() {
		local warm="(cd $work && PACT_AGENT_ID=opencode $1 join opencode --roles worker >/dev/null)"
		prepares+=("sync" "$restore && $warm && sync" "$restore && $warm && sync" "$restore && $warm && sync" "$stale && sync")
	}
	prepares=("sync")
	prepare "$pactify"
	nv=5 # verbs of pactify, after jq
	if [[ -n $base ]]; then
		verbs base- "$dir/bin/pactify-base"
		prepare "$dir/bin/pactify-base"
		for ((i = 1; i <= nv; i++)); do names+=("base-${names[$i]}"); done
	fi
	rm -f "$dir"/rss-"$n"-*.txt
	arg() { args+=(--prepare "${prepares[$1]}" -n "${names[$1]}" "${cmds[$1]}"); }
	bash -c "${cmds[1]}" # one validate first, untimed
	[[ -z $base ]] || bash -c "${cmds[nv + 1]}"
	for ((r = 1; r <= runs; r++)); do
		args=()
		arg 0
		for ((i = 1; i <= nv; i++)); do
			if [[ -z $base ]]; then
				arg $i
			elif ((r % 2)); then
				arg $i && arg $((i + nv))
			else
				arg $((i + nv)) && arg $i
			fi
		done
		hyperfine --runs "$per" --style none --export-json "$dir/round.json" "${args[@]}" >/dev/null
		jq -r --arg n "$n" --arg r "$r" '.results[] | [$n, $r, .command, .mean, .user + .system] | @tsv' "$dir/round.json" >>"$results"
	done
	bash -c "$restore"
	for name in "${names[@]}"; do
		printf '%s\t0\trss-%s\t%s\n' "$n" "$name" "$(sort -n "$dir/rss-$n-$name.txt" | tail -1)" >>"$results"
	done
done

# Medians per size: of each command's time, and of the ratios within a round
# (plain POSIX awk: mawk has no sort).
awk -F'\t' -v runs="$runs" '
function sortn(a, k,    i, j, x) {
	for (i = 2; i <= k; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
}
function median(list,    a, k) {
	k = split(list, a, " "); sortn(a, k)
	return (k % 2) ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
}
$2 == 0 { rss[$1, substr($3, 5)] = $4 / 1024; next }
{ t[$1, $2, $3] = $4; cpu[$1, $2, $3] = $5; sizes[$1] = 1; times[$1, $3] = times[$1, $3] " " $4 }
END {
	n = 0
	for (s in sizes) order[++n] = s + 0
	sortn(order, n)
	nv = split("validate join assign accept log-replay", verbs, " ")
	printf "\n%-9s %-10s %10s %10s %14s %12s\n", "events", "command", "median s", "peak MiB", "ratio", "per event"
	for (i = 1; i <= n; i++) {
		s = order[i]
		jq = median(times[s, "jq"])
		v = median(times[s, "validate"])
		printf "%-9s %-10s %10.3f %10.1f %14s %12s\n", s, "jq", jq, rss[s, "jq"], "", ""
		for (j = 1; j <= nv; j++) {
			c = verbs[j]; ratios = ""
			for (r = 1; r <= runs; r++) {
				if (c == "validate") ratios = ratios " " t[s, r, "jq"] / t[s, r, c]
				else ratios = ratios " " t[s, r, c] / t[s, r, "validate"]
			}
			label = (c == "validate") ? sprintf("jq/v %.2fx", median(ratios)) : sprintf("/v %.2fx", median(ratios))
			printf "%-9s %-10s %10.3f %10.1f %14s %10.2fus\n", s, c, median(times[s, c]), rss[s, c], label, median(times[s, c]) / s * 1e6
			if (c == "validate") { jqv[s] = median(ratios); pe[s] = median(times[s, c]) / s }
			else if (median(ratios) > worst[s]) worst[s] = median(ratios)
		}
	}
	printf "\ntargets:\n"
	lo = 1e9; hi = 0
	for (i = 1; i <= n; i++) {
		s = order[i]
		want = (s <= 10000) ? 4 : 6
		printf "  %8d events: jq/validate %.2fx (>= %dx: %s); slowest writer/validate %.2fx (<= 1x: %s)\n", s, jqv[s], want, (jqv[s] >= want ? "met" : "NOT met"), worst[s], (worst[s] <= 1 ? "met" : "NOT met")
		if (s >= 100000) { big++; if (pe[s] < lo) lo = pe[s]; if (pe[s] > hi) hi = pe[s] }
		if (s == 1000000) {
			m = 0
			for (j = 1; j <= nv; j++) if (rss[s, verbs[j]] > m) m = rss[s, verbs[j]]
			printf "  peak RSS at 1M events: %.1f MiB (<= 256 MiB: %s)\n", m, (m <= 256 ? "met" : "NOT met")
		}
	}
	# Linear: time per event within 10% over the sizes of 100k events and
	# more (below, start-up is most of a run).
	if (big > 1) printf "  validate time per event, slowest over fastest size of 100k events or more: %.2fx (<= 1.1x: %s)\n", hi / lo, (hi / lo <= 1.1 ? "met" : "NOT met")
	if (!((order[1], 1, "base-validate") in t)) exit
	printf "\nnew against base (%s), medians of the ratios within a round:\n", base
	printf "(cpu: user + system time, which the load of other processes moves less than wall time)\n"
	printf "%-9s %-10s %10s %10s %10s %10s %10s %10s\n", "events", "command", "base s", "new s", "new/base", "cpu n/b", "base MiB", "new MiB"
	slowest = 0
	for (i = 1; i <= n; i++) {
		s = order[i]
		for (j = 1; j <= nv; j++) {
			c = verbs[j]; ratios = ""; cpus = ""
			for (r = 1; r <= runs; r++) {
				ratios = ratios " " t[s, r, c] / t[s, r, "base-" c]
				cpus = cpus " " cpu[s, r, c] / cpu[s, r, "base-" c]
			}
			m = median(ratios)
			if (m > slowest) slowest = m
			printf "%-9s %-10s %10.3f %10.3f %9.3fx %9.3fx %10.1f %10.1f\n", s, c, median(times[s, "base-" c]), median(times[s, c]), m, median(cpus), rss[s, "base-" c], rss[s, c]
		}
	}
	printf "  slowest new/base (wall): %.3fx (a regression over 5%%: %s)\n", slowest, (slowest > 1.05 ? "YES" : "no")
}' base="$base" "$results"
