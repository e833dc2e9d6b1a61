#!/usr/bin/env bash
# The suite under load: ROUNDS rounds (3 unless set), each of COPIES fresh
# clones of HEAD (3 unless set) running .ci/run — README's test command —
# at once, so each run has the other copies beside it. Every run's log,
# ending in "rc=N secs=N", and the load average every 30 s go under
# OUT (a new directory in ${TMPDIR:-/tmp} unless set). Exits 0 only when
# every run of every round passed; the rounds after a failure still run.
#
#   scripts/load-rounds.sh                # three rounds of three copies
#   ROUNDS=1 COPIES=2 scripts/load-rounds.sh
#
# Commit what you want measured: the clones are of HEAD, not of the work
# tree. A round takes 20-30 minutes on a 2-core machine.
set -uo pipefail
top=$(git rev-parse --show-toplevel) || exit 2
rev=$(git -C "$top" rev-parse HEAD) || exit 2
rounds=${ROUNDS:-3}
copies=${COPIES:-3}
out=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/yagent-load-XXXXXX")}
mkdir -p "$out"
echo "load rounds of $rev: $rounds rounds of $copies copies, logs in $out"
failed=0
for r in $(seq 1 "$rounds"); do
  dir=$out/round$r
  mkdir -p "$dir"
  for c in $(seq 1 "$copies"); do
    git clone -q "$top" "$dir/c$c" && git -C "$dir/c$c" checkout -q "$rev" || exit 2
  done
  (while sleep 30; do echo "$(date -u +%T) $(cut -d' ' -f1-3 /proc/loadavg)"; done) >"$dir/load" &
  sampler=$!
  pids=()
  for c in $(seq 1 "$copies"); do
    (
      cd "$dir/c$c" || exit 2
      start=$(date +%s)
      GOFLAGS=-count=1 bash .ci/run >"$dir/c$c.log" 2>&1
      rc=$?
      echo "rc=$rc secs=$(($(date +%s) - start))" >>"$dir/c$c.log"
      exit $rc
    ) &
    pids+=($!)
  done
  passed=0
  for p in "${pids[@]}"; do
    wait "$p" && passed=$((passed + 1))
  done
  kill "$sampler" 2>/dev/null
  l=$(awk '{print $2}' "$dir/load" | sort -n | sed -n '1p;$p' | paste -sd- -)
  echo "round $r: $passed of $copies passed${l:+, 1-minute load $l}"
  if [ "$passed" -ne "$copies" ]; then
    failed=1
    grep -h -- "^--- FAIL\|^FAIL" "$dir"/c*.log | sort | uniq -c | head -20
  fi
  rm -rf "$dir"/c[0-9]*/ # the clones; their logs stay
done
exit $failed
