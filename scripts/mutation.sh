#!/usr/bin/env bash
# Mutation testing of the packages in scripts/mutation.conf (or those
# named): gremlins (pinned) over each package's listed files, then every
# hand-written mutant under scripts/mutants/<package>/ (a patch, applied
# to a scratch worktree, the package's tests run, the patch reverted).
# A mutant no test covers counts as a survivor; one that does not compile
# (gremlins turns a string's + into -) is no mutant and is not counted.
# Prints one line per package: package, mutants, killed, efficacy, date.
#
#   scripts/mutation.sh                 # every package of the table
#   scripts/mutation.sh ./webui ./sleep # some
#   GREMLINS_WORKERS=1 scripts/mutation.sh ./sandbox
#
# A long package is measured in parts (run them one after the other, or
# side by side on an idle machine, and add the lines up):
#   MUTATION_PARTS=hand scripts/mutation.sh ./sandbox   # hand mutants only
#   MUTATION_PARTS=gremlins MUTATION_FILES="plan.go split.go" \
#     scripts/mutation.sh ./sandbox                     # those files' only
# MUTATION_DIFF=REV (with MUTATION_APPLY=1) keeps only the mutants on
# lines added or changed since REV: after a full measurement at REV,
# what changed since.
# MUTATION_APPLY=1 applies every gremlins mutant here (as for tests=
# below) instead of letting gremlins run them: a mutant no test covers is
# judged too, and MUTATION_LOG=FILE records for each mutant its verdict
# and the tests that failed (a kill by an unrelated or timing-sensitive
# test is worth a look: a flaky failure would count a mutant as killed).
# The line printed then names the part measured. MUTATION_HAND=GLOB (with
# MUTATION_PARTS=hand) runs only the hand-written mutants whose file name
# matches it ("view-*"). MUTATION_FROM=FILE:LINE
# (with MUTATION_APPLY=1) skips FILE's mutants above LINE: the rest of a
# file whose first part an earlier run judged.
#
# Where this script applies a mutant itself, each judging package's test
# binary is built once (vet off) and run in the package's directory: first
# the quick tests mutation.conf names (first=), one by one in that order,
# then all the others. Every test runs once and a failure ends the run: the
# order changes no verdict, only the time a killed mutant costs (./sandbox:
# seconds instead of 35-60 s on a busy machine).
#
# A package whose code runs in a child process its tests start (the
# sandbox's helper, in the re-executed test binary's init) names the
# packages whose tests judge its mutants (tests=A,B in mutation.conf):
# coverage cannot see a child's code, so every mutant gremlins finds there
# is applied here and those packages' tests run.
#
# A package whose tests must run in another build names its environment
# (env=NAME=VALUE,... in mutation.conf): the baseline, gremlins, each
# mutant's build and its tests run with it. ./sandbox/helper has
# env=CGO_ENABLED=0: with cgo the C helper (nsexec.c) takes every command
# and a mutant of the Go helper never runs. Its hand-written mutants of
# the C helper (c-*.patch) are judged with CGO_ENABLED=1, the only build
# that compiles nsexec.c.
#
# It changes nothing in your checkout: it works in a scratch worktree of
# HEAD (commit what you want measured).
set -euo pipefail
top=$(git rev-parse --show-toplevel)
cd "$top"
gremlins=(go run github.com/go-gremlins/gremlins/cmd/gremlins@v0.6.0)
workers=${GREMLINS_WORKERS:-1}
if [ -n "${MUTATION_DIFF:-}" ] && [ -z "${MUTATION_APPLY:-}" ]; then
  echo "mutation.sh: MUTATION_DIFF needs MUTATION_APPLY=1 (gremlins itself would run every mutant)" >&2
  exit 2
fi
# gremlins times each mutant's tests against its coverage run: a cached
# one (1 s) made every mutant of ./agents TIMED OUT (counted killed).
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-count=1"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/yagent-mutation-XXXXXX")
trap 'git worktree remove --force "$scratch" >/dev/null 2>&1 || true; rm -rf "$scratch"' EXIT
git worktree add --detach "$scratch" HEAD >/dev/null
cd "$scratch"

parts=${MUTATION_PARTS:-all}
case "$parts" in all | gremlins | hand) ;; *)
  echo "mutation.sh: MUTATION_PARTS is all, gremlins or hand, not $parts" >&2
  exit 2
  ;;
esac
log=${MUTATION_LOG:-/dev/null}
pkgs=("$@")
if [ ${#pkgs[@]} -eq 0 ]; then
  mapfile -t pkgs < <(grep -v '^#' scripts/mutation.conf | awk 'NF {print $1}')
fi

# mutate_at FILE LINE COL TYPE: see scripts/mutate-at.sh.
. "$top/scripts/mutate-at.sh"

# A mutant whose tests time out counts as killed (listed on stderr: rerun
# with a larger GREMLINS_TIMEOUT when the machine was busy).
printf '%-18s %8s %7s %9s  %s\n' package mutants killed efficacy date
for pkg in "${pkgs[@]}"; do
  line=$(awk -v p="$pkg" '$1 == p {$1 = ""; print}' scripts/mutation.conf)
  if [ -z "$line" ]; then
    echo "mutation.sh: $pkg is not in scripts/mutation.conf" >&2
    exit 2
  fi
  files="" testpkgs=("$pkg") pkgenv=()
  read -r -a words <<<"$line" # (no glob: "*" stays itself)
  for w in "${words[@]}"; do
    case "$w" in
      tests=*) IFS=, read -r -a testpkgs <<<"${w#tests=}" ;;
      first=*) ;; # read by run_tests
      env=*) IFS=, read -r -a pkgenv <<<"${w#env=}" ;;
      *) files="$files $w" ;;
    esac
  done
  files="${files# }"
  # with_env CMD...: CMD in the package's environment (env= above).
  with_env() { env ${pkgenv[@]+"${pkgenv[@]}"} "$@"; }
  if [ -n "${MUTATION_FILES:-}" ]; then
    for f in $MUTATION_FILES; do
      if [ "$files" != "*" ] && [[ " $files " != *" $f "* ]]; then
        echo "mutation.sh: $f is not among the files of $pkg in scripts/mutation.conf" >&2
        exit 2
      fi
    done
    files="$MUTATION_FILES"
  fi
  # gremlins walks the package's directory and its subdirectories, and
  # matches --exclude-files against paths relative to the package: keep
  # the files listed ("*": those built on this system) and nothing below.
  built=" $(with_env go list -f '{{join .GoFiles " "}}' "$pkg") "
  excludes=(--exclude-files /)
  for f in "$pkg"/*.go; do
    base=$(basename "$f")
    case "$base" in *_test.go) continue ;; esac
    if [ "$files" = "*" ]; then
      [[ "$built" == *" $base "* ]] && continue
    elif [[ " $files " == *" $base "* ]]; then
      continue
    fi
    excludes+=(--exclude-files "^${base//./\\.}$")
  done
  # Test timeout: ten times (GREMLINS_TIMEOUT) a clean run, which must pass.
  start=$(date +%s)
  if ! with_env go test -count=1 "${testpkgs[@]}" >"$scratch/baseline.log" 2>&1; then
    echo "mutation.sh: the tests of ${testpkgs[*]} fail without a mutant:" >&2
    cat "$scratch/baseline.log" >&2
    exit 1
  fi
  limit=$(( ($(date +%s) - start + 10) * ${GREMLINS_TIMEOUT:-10} ))
  # run_tests: the judging packages' tests pass, one package after the
  # other (the first to fail ends the run), so the mutant lived; past the
  # limit a run counts as killed, as gremlins counts TIMED OUT.
  run_tests() {
    local t i=0 bins=() rc
    # Each judging package's test binary, built once (vet off: a vet
    # complaint is no behaviour).
    for t in "${testpkgs[@]}"; do
      if ! with_env go test -c -vet=off -o "$scratch/judge$i.test" "$t" >"$scratch/run.log" 2>&1; then
        # No mutant: a hand patch that does not compile guards nothing
        # (its caller counts it as a survivor to mend).
        echo "broken $1: $t does not build with it: $(head -c 300 "$scratch/run.log" | tr '\n' ' ')" >>"$log"
        return 2
      fi
      bins+=("$scratch/judge$i.test")
      i=$((i + 1))
    done
    # judge PASS I [ARGS]: the I-th package's tests, run as go test would
    # (in its directory), the first failure ending the run.
    judge() {
      local t=${testpkgs[$2]}
      rc=0
      (cd "$t" && with_env timeout "$limit" "${bins[$2]}" -test.count=1 -test.failfast -test.timeout=0 "${@:3}") >"$scratch/run.log" 2>&1 || rc=$?
      [ "$rc" -eq 0 ] && return 0
      echo "killed $mutant by $t ($1): $([ "$rc" -ne 124 ] || echo 'timed out ')$(grep -oE -- '--- FAIL: [^ ]+|panic: .*' "$scratch/run.log" | head -3 | tr '\n' ' ')" >>"$log"
      return 1
    }
    local mutant=$1
    # The quick tests of each package first, one by one in the order
    # mutation.conf names them (first=), then the rest of them: each test
    # runs once, and a mutant the quick ones kill costs seconds.
    for i in "${!testpkgs[@]}"; do
      local first f
      first=$(awk -v p="${testpkgs[$i]}" '$1 == p {for (i = 2; i <= NF; i++) if ($i ~ /^first=/) print substr($i, 7)}' scripts/mutation.conf)
      if [ -z "$first" ]; then
        judge all "$i" || return 1
        continue
      fi
      for f in ${first//,/ }; do
        judge first "$i" -test.run "^$f\$" || return 1
      done
      judge rest "$i" -test.skip "^(${first//,/|})\$" || return 1
    done
    echo "lived $mutant" >>"$log"
  }
  # viable: the mutated package still compiles.
  viable() { with_env go build "$pkg" >/dev/null 2>&1; }

  out="$scratch/.gremlins-$(echo "${pkg#./}" | tr / _).json"
  killed=0 lived=0 notcov=0 timedout=0 nonviable=0
  mutants() { sed -nE "s/^ *($1) ([A-Z_]+) at ([^:]+):([0-9]+):([0-9]+).*/\2 \3 \4 \5/p" "$out.log"; }
  # in_order: a file's mutants from its top down, the files in the order
  # MUTATION_FILES names them (a run stopped early has judged whole files
  # and the top of one: MUTATION_FROM goes on from there).
  in_order() {
    local all f
    all=$(mutants "$1")
    for f in ${MUTATION_FILES:-$(awk '{print $2}' <<<"$all" | sort -u)}; do
      awk -v f="$f" -v lines="$(changed "$pkg/$f")" '
        BEGIN { n = split(lines, l, " "); for (i = 1; i <= n; i++) keep[l[i]] = 1 }
        $2 == f && (lines == "all" || $3 in keep)' <<<"$all" | sort -s -k3,3n -k4,4n
    done
  }
  # changed FILE: "all", or with MUTATION_DIFF=REV the numbers of FILE's
  # lines added or changed since REV (gremlins' own --diff matches no file
  # of a package below the module's root).
  changed() {
    [ -n "${MUTATION_DIFF:-}" ] || { echo all; return; }
    git diff -U0 "$MUTATION_DIFF" HEAD -- "$1" |
      sed -nE 's/^@@ [^+]*\+([0-9]+)(,([0-9]+))? @@.*/\1 \3/p' |
      awk '{ n = ($2 == "") ? 1 : $2; for (i = 0; i < n; i++) printf "%d ", $1 + i }'
  }
  if [ "$parts" = hand ]; then
    : # no gremlins mutant
  elif [ -n "${MUTATION_APPLY:-}" ] || [ ${#testpkgs[@]} -gt 1 ] || [ "${testpkgs[0]}" != "$pkg" ]; then
    # Every mutant, covered or not, applied here and judged by testpkgs.
    with_env "${gremlins[@]}" unleash --dry-run "${excludes[@]}" "$pkg" >"$out.log" 2>&1 || true
    while read -r typ file ln col; do
      if [ -n "${MUTATION_FROM:-}" ] && [ "$file" = "${MUTATION_FROM%%:*}" ] && [ "$ln" -lt "${MUTATION_FROM##*:}" ]; then
        continue # judged in an earlier part
      fi
      if ! mutate_at "$pkg/$file" "$ln" "$col" "$typ"; then
        notcov=$((notcov + 1))
        echo "  $pkg LIVED $typ at $file:$ln:$col (could not be applied: counted as a survivor)" >&2
      elif ! viable; then
        nonviable=$((nonviable + 1))
      else
        rc=0
        run_tests "$typ $file:$ln:$col" || rc=$?
        if [ "$rc" -eq 0 ]; then
          lived=$((lived + 1))
          echo "  $pkg LIVED $typ at $file:$ln:$col" >&2
        elif [ "$rc" -eq 2 ]; then
          nonviable=$((nonviable + 1)) # the tests do not build with it
        else
          killed=$((killed + 1))
        fi
      fi
      git checkout -q -- "$pkg/$file"
    done < <(in_order 'RUNNABLE|NOT COVERED')
  else
    with_env "${gremlins[@]}" unleash --workers "$workers" --timeout-coefficient "${GREMLINS_TIMEOUT:-10}" "${excludes[@]}" "$pkg" >"$out.log" 2>&1 || true
    num() { grep -oE "$1: [0-9]+" "$out.log" | tail -1 | grep -oE '[0-9]+$' || echo 0; }
    killed=$(num Killed) lived=$(num Lived) timedout=$(num 'Timed out')
    grep -E '^ *(LIVED|TIMED OUT)' "$out.log" | sed "s|^|  $pkg |" >&2 || true
    # gremlins v0.6.0 counts a mutant that does not compile as killed (go
    # test exits 1 on a build failure too): check the ones that may not.
    while read -r typ file ln col; do
      if mutate_at "$pkg/$file" "$ln" "$col" "$typ" && ! viable; then
        killed=$((killed - 1)) nonviable=$((nonviable + 1))
      fi
      git checkout -q -- "$pkg/$file"
    done < <(mutants KILLED | grep -E '^(ARITHMETIC_BASE|INVERT_NEGATIVES) ')
    # gremlins v0.6.0 calls every condition of a tagless switch NOT
    # COVERED (go-gremlins/gremlins#298: Go's coverage blocks start after
    # the case's colon), covered or not. Each NOT COVERED mutant is
    # applied here and the package's tests run: one no test reaches lives.
    while read -r typ file ln col; do
      if ! mutate_at "$pkg/$file" "$ln" "$col" "$typ"; then
        notcov=$((notcov + 1))
        echo "  $pkg NOT COVERED $typ at $file:$ln:$col (could not be applied: counted as a survivor)" >&2
      elif ! viable; then
        nonviable=$((nonviable + 1))
      else
        rc=0
        run_tests "$typ $file:$ln:$col" || rc=$?
        if [ "$rc" -eq 0 ]; then
          notcov=$((notcov + 1))
          echo "  $pkg NOT COVERED $typ at $file:$ln:$col (applied by mutation.sh: it lived)" >&2
        elif [ "$rc" -eq 2 ]; then
          nonviable=$((nonviable + 1)) # the tests do not build with it
        else
          killed=$((killed + 1))
        fi
      fi
      git checkout -q -- "$pkg/$file"
    done < <(mutants 'NOT COVERED')
  fi
  hk=0 hs=0
  dir="scripts/mutants/$(echo "${pkg#./}" | tr / _)"
  if [ -d "$dir" ] && [ "$parts" != gremlins ]; then
    for patch in "$dir"/*.patch; do
      [ -e "$patch" ] || continue
      # shellcheck disable=SC2254 # a glob, on purpose
      case "$(basename "$patch")" in ${MUTATION_HAND:-*}) ;; *) continue ;; esac
      if ! git apply "$patch" 2>/dev/null; then
        # A stale mutant counts as a survivor (it no longer guards
        # anything); internal/repotest's TestMutantsApply fails on it.
        hs=$((hs + 1))
        echo "  survived: $patch (no longer applies: regenerate it)" >&2
        continue
      fi
      saved=(${pkgenv[@]+"${pkgenv[@]}"})
      case "$(basename "$patch")" in c-*) pkgenv+=(CGO_ENABLED=1) ;; esac
      rc=0
      run_tests "$patch" || rc=$?
      pkgenv=(${saved[@]+"${saved[@]}"})
      if [ "$rc" -eq 2 ]; then
        hs=$((hs + 1))
        echo "  survived: $patch (does not compile: mend it so the code builds without what it deletes)" >&2
      elif [ "$rc" -eq 0 ]; then
        hs=$((hs + 1))
        echo "  survived: $patch" >&2
      else
        hk=$((hk + 1))
      fi
      git apply -R "$patch"
    done
  fi
  k=$((killed + timedout + hk))
  total=$((k + lived + notcov + hs))
  eff=$(awk -v k=$k -v t=$total 'BEGIN { if (t == 0) print "n/a"; else printf "%.1f%%", 100 * k / t }')
  [ "$nonviable" -eq 0 ] || echo "  $pkg: $nonviable mutants did not compile (not counted)" >&2
  what=""
  [ "$parts" = all ] || what=" ($parts only)"
  [ -z "${MUTATION_FILES:-}" ] || [ "$parts" = hand ] || what="$what (gremlins: $files)"
  printf '%-18s %8d %7d %9s  %s%s\n' "$pkg" "$total" "$k" "$eff" "$(date +%F)" "$what"
done
