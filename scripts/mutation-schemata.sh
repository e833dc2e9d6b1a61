#!/usr/bin/env bash
# Mutation testing of ./sandbox/helper by mutant schemata: every gremlins
# mutant of the package (gremlins pinned as in scripts/mutation.sh, its
# dry run) is compiled into one copy of the package at once, each behind
# a switch on a number the process reads once at start
# (scripts/mutation-schemata.go rewrites a scratch copy); the judging
# packages' test binaries (tests= in scripts/mutation.conf:
# ./sandbox/helper, ./sandbox) are built once, in the package's
# environment (env=: CGO_ENABLED=0, the only build whose helper is the Go
# one), and run once per mutant with the mutant's number patched into
# them. The number is data in the binary (the string
# YAGENT-MUTANT-SELECTOR:NNNNN), not an environment variable: the helper
# runs in a child the test starts through /proc/self/exe, with the
# environment the sandbox filters, so the child runs the same mutant as
# its parent. One build instead of one per mutant: a mutant costs its
# tests' time only (scripts/mutation.sh: ≈ 40 s of rebuild each).
#
#   scripts/mutation-schemata.sh                  # every file of the package
#   MUTATION_FILES="spec.go caps_linux.go" scripts/mutation-schemata.sh
#   MUTATION_IDS="3 17" scripts/mutation-schemata.sh   # those mutants only
#   MUTATION_LOG=FILE                             # a verdict a line
#   MUTATION_OLDWAY=1 MUTATION_IDS="1 3"          # the old way: a build each
#
# Each mutant runs the tests as scripts/mutation.sh does: the quick tests
# first (first= of mutation.conf, one by one in its order), then the
# rest, each test once, the first failure ending the run; past
# MUTATION_TIMEOUT seconds (default: three times the clean run) a mutant
# counts as killed, and its log line says "timed out"; a quick test
# alone gets MUTATION_QUICK_TIMEOUT (90 s: a hang costs that). Mutant 0
# (none) runs first and must pass (MUTATION_BASELINE=0, with
# MUTATION_TIMEOUT, skips it: a rerun of some mutants of a checked tree). A mutant that does not compile (a string's +
# turned into -) is no mutant and is not counted; one that cannot be a
# schema (in a constant declaration: a call cannot stand there) is
# judged the old way, its own build (MUTATION_OLDWAY=1 judges every
# mutant so: the check that the schemata give the same verdicts). Mutant numbers are the order of
# the files (MUTATION_FILES), then line and column; the log names each
# mutant's type and position, and `MUTATION_SHOW=N` prints N's diff
# (the mutated line) instead of running anything.
#
# It changes nothing in your checkout: it works in scratch worktrees of
# HEAD (commit what you want measured).
set -euo pipefail
top=$(git rev-parse --show-toplevel)
cd "$top"
pkg=./sandbox/helper
gremlins=(go run github.com/go-gremlins/gremlins/cmd/gremlins@v0.6.0)
files=${MUTATION_FILES:-caps_linux.go seccomp_linux.go helper.go landlock_linux.go run_linux.go spec.go view_linux.go}
log=${MUTATION_LOG:-/dev/null}
export CGO_ENABLED=0
scratch=$(mktemp -d "${TMPDIR:-/tmp}/yagent-schemata-XXXXXX")
old=$scratch/old # the unmutated tree, for mutants judged the old way
trap 'git worktree remove --force "$scratch/tree" >/dev/null 2>&1 || true; git worktree remove --force "$old" >/dev/null 2>&1 || true; rm -rf "$scratch"' EXIT
git worktree add --detach "$scratch/tree" HEAD >/dev/null
git worktree add --detach "$old" HEAD >/dev/null
cd "$scratch/tree"

# The mutants: gremlins' dry run over the files named, numbered from 1.
excludes=(--exclude-files /)
for f in "$pkg"/*.go; do
  base=$(basename "$f")
  case "$base" in *_test.go) continue ;; esac
  [[ " $files " == *" $base "* ]] && continue
  excludes+=(--exclude-files "^${base//./\\.}$")
done
"${gremlins[@]}" unleash --dry-run "${excludes[@]}" "$pkg" >"$scratch/dry.log" 2>&1 || true
all=$(sed -nE 's/^ *(RUNNABLE|NOT COVERED) ([A-Z_]+) at ([^:]+):([0-9]+):([0-9]+).*/\2 \3 \4 \5/p' "$scratch/dry.log")
for f in $files; do
  awk -v f="$f" '$2 == f' <<<"$all" | sort -k3,3n -k4,4n -k1,1
done | awk '{print NR, $0}' >"$scratch/mutants"
if [ ! -s "$scratch/mutants" ]; then
  echo "mutation-schemata.sh: gremlins found no mutant:" >&2
  cat "$scratch/dry.log" >&2
  exit 1
fi
if [ -n "${MUTATION_SHOW:-}" ]; then
  read -r _ typ file ln col < <(awk -v n="$MUTATION_SHOW" '$1 == n' "$scratch/mutants")
  echo "$MUTATION_SHOW $typ $file:$ln:$col"
  sed -n "${ln}p" "$pkg/$file"
  exit 0
fi
go run "$top/scripts/mutation-schemata.go" "$pkg" "$scratch/mutants" >"$scratch/skips"

# The judging packages and their quick tests, from mutation.conf.
line=$(awk -v p="$pkg" '$1 == p' scripts/mutation.conf)
testpkgs=$(grep -oE 'tests=[^ ]+' <<<"$line" | sed 's/tests=//; s/,/ /g')
# build DIR: each judging package's test binary, built in DIR (vet off).
build() {
  local i=0 t
  for t in $testpkgs; do
    (cd "$1" && nice -n 10 go test -c -vet=off -o "$scratch/judge$i.test" "$t") || return 1
    i=$((i + 1))
  done
}
build "$scratch/tree" >"$scratch/build.log" 2>&1 || {
  echo "mutation-schemata.sh: the schemata do not build:" >&2
  cat "$scratch/build.log" >&2
  exit 1
}
# select N: the binaries run mutant N (the digits patched in place).
select_mutant() {
  local i=0 t
  for t in $testpkgs; do
    perl -0777 -pi -e 's/YAGENT-MUTANT-SELECTOR:\d{5}/sprintf("YAGENT-MUTANT-SELECTOR:%05d", '"$1"')/ge' "$scratch/judge$i.test"
    i=$((i + 1))
  done
}
# judge: the tests of every judging package pass under the current
# binaries; on a failure, a line in the log and false. The test that
# killed the last mutant runs first (a file's mutants are mostly killed
# by the same few tests), then the order above.
# reap: end what a timed-out mutant left running (a helper that did not
# take over runs the tests again, and starts helpers in its turn): every
# process whose program is one of the judging binaries, by its id.
reap() {
  local p exe
  for p in /proc/[0-9]*; do
    exe=$(readlink "$p/exe" 2>/dev/null) || continue
    case "$exe" in "$scratch"/judge*.test*) kill -9 "${p#/proc/}" 2>/dev/null || true ;; esac
  done
}
lastkill="" # I TEST: the judging package's index and the test
judge() {
  local i=0 t first f rc
  local deadline=$(($(date +%s) + limit))
  run() { # run PHASE ARGS...
    local left=$((deadline - $(date +%s)))
    [ "$left" -gt 0 ] || left=1
    # A quick test gets quicklimit seconds: a mutant that hangs one (a
    # helper that does not take over runs the tests again) costs that,
    # not the whole limit.
    [ "$1" = rest ] || [ "$1" = all ] || [ "$left" -le "$quicklimit" ] || left=$quicklimit
    rc=0
    (cd "$dir/$t" && nice -n 10 timeout "$left" "$scratch/judge$i.test" -test.count=1 -test.failfast -test.timeout=0 "${@:2}") >"$scratch/run.log" 2>&1 || rc=$?
    [ "$rc" -eq 0 ] && return 0
    [ "$rc" -ne 124 ] || reap
    echo "killed $what by $t ($1): $([ "$rc" -ne 124 ] || echo 'timed out ')$(grep -oE -- '--- FAIL: [^ ]+|panic: .{0,160}' "$scratch/run.log" | head -3 | tr '\n' ' ')" >>"$log"
    local k
    k=$(grep -oE -- '--- FAIL: [^ /]+' "$scratch/run.log" | head -1 | sed 's/--- FAIL: //')
    lastkill=""
    [ -z "$k" ] || lastkill="$i $k"
    return 1
  }
  if [ -n "$lastkill" ]; then
    i=${lastkill%% *}
    t=$(awk -v n="$i" '{if (NR == n + 1) print}' <<<"${testpkgs// /$'\n'}")
    run last -test.run "^${lastkill#* }\$" || return 1
    i=0
  fi
  for t in $testpkgs; do
    first=$(awk -v p="$t" '$1 == p {for (i = 2; i <= NF; i++) if ($i ~ /^first=/) print substr($i, 7)}' scripts/mutation.conf)
    if [ -z "$first" ]; then
      run all || return 1
    else
      for f in ${first//,/ }; do
        run first -test.run "^$f\$" || return 1
      done
      run rest -test.skip "^(${first//,/|})\$" || return 1
    fi
    i=$((i + 1))
  done
  echo "lived $what" >>"$log"
}
dir=$scratch/tree
limit=${MUTATION_TIMEOUT:-100000}
quicklimit=${MUTATION_QUICK_TIMEOUT:-90}
if [ "${MUTATION_BASELINE:-1}" = 1 ]; then
  start=$(date +%s)
  select_mutant 0
  what="0 (no mutant)"
  if ! judge; then
    echo "mutation-schemata.sh: the tests fail without a mutant:" >&2
    cat "$scratch/run.log" >&2
    exit 1
  fi
  limit=${MUTATION_TIMEOUT:-$((($(date +%s) - start + 10) * 3))}
  echo "baseline $(($(date +%s) - start)) s; timeout $limit s a mutant" >>"$log"
elif [ -z "${MUTATION_TIMEOUT:-}" ]; then
  echo "mutation-schemata.sh: MUTATION_BASELINE=0 needs MUTATION_TIMEOUT" >&2
  exit 2
fi

# mutate_at FILE LINE COL TYPE: see scripts/mutate-at.sh.
. "$top/scripts/mutate-at.sh"

killed=0 lived=0 nonviable=0
declare -A perfile_total perfile_killed
while read -r id typ file ln col; do
  if [ -n "${MUTATION_IDS:-}" ] && [[ " $MUTATION_IDS " != *" $id "* ]]; then
    continue
  fi
  why=$(awk -v n="$id" '$2 == n {print $3}' "$scratch/skips")
  what="$id $typ $file:$ln:$col"
  t0=$(date +%s)
  if [ "$why" = nonviable ]; then
    nonviable=$((nonviable + 1))
    echo "nonviable $what" >>"$log"
    continue
  elif [ "$why" = const ] || [ -n "${MUTATION_OLDWAY:-}" ]; then
    # The old way: this mutant alone, its own build.
    mutate_at "$old/$pkg/$file" "$ln" "$col" "$typ"
    if ! build "$old" >"$scratch/build.log" 2>&1; then
      nonviable=$((nonviable + 1))
      echo "nonviable $what" >>"$log"
      git -C "$old" checkout -q -- "$pkg/$file"
      continue
    fi
    git -C "$old" checkout -q -- "$pkg/$file"
    dir=$old
    rc=0
    judge || rc=$?
    dir=$scratch/tree
    build "$scratch/tree" >"$scratch/build.log" 2>&1 # the schemata again
  else
    select_mutant "$id"
    rc=0
    judge || rc=$?
  fi
  perfile_total[$file]=$((${perfile_total[$file]:-0} + 1))
  if [ "$rc" -eq 0 ]; then
    lived=$((lived + 1))
    echo "  LIVED $what" >&2
  else
    killed=$((killed + 1))
    perfile_killed[$file]=$((${perfile_killed[$file]:-0} + 1))
  fi
  echo "  ($(($(date +%s) - t0)) s)" >>"$log"
done <"$scratch/mutants"
printf '%-18s %8s %7s %s\n' file mutants killed nonviable
for f in $files; do
  printf '%-18s %8d %7d %s\n' "$f" "${perfile_total[$f]:-0}" "${perfile_killed[$f]:-0}" \
    "$(grep -c " $f:" <(grep '^nonviable' "$log" 2>/dev/null) || true)"
done
printf '%-18s %8d %7d %d  %s\n' "$pkg" $((killed + lived)) "$killed" "$nonviable" "$(date +%F)"
