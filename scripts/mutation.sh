#!/usr/bin/env bash
# Mutation testing of the packages in scripts/mutation.conf (or those
# named): gremlins (pinned) over each package's listed files, then every
# hand-written mutant under scripts/mutants/<package>/ (a patch, applied
# to a scratch worktree, the package's tests run, the patch reverted).
# A mutant no test covers counts as a survivor. Prints one line per
# package: package, mutants, killed, efficacy, date.
#
#   scripts/mutation.sh                 # every package of the table
#   scripts/mutation.sh ./webui ./sleep # some
#   GREMLINS_WORKERS=1 scripts/mutation.sh ./sandbox
#
# It changes nothing in your checkout: it works in a scratch worktree of
# HEAD (commit what you want measured).
set -euo pipefail
top=$(git rev-parse --show-toplevel)
cd "$top"
gremlins=(go run github.com/go-gremlins/gremlins/cmd/gremlins@v0.6.0)
workers=${GREMLINS_WORKERS:-1}
# gremlins times each mutant's tests against its coverage run: a cached
# one (1 s) made every mutant of ./agents TIMED OUT (counted killed).
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-count=1"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/yagent-mutation-XXXXXX")
trap 'git worktree remove --force "$scratch" >/dev/null 2>&1 || true; rm -rf "$scratch"' EXIT
git worktree add --detach "$scratch" HEAD >/dev/null
cd "$scratch"

pkgs=("$@")
if [ ${#pkgs[@]} -eq 0 ]; then
  mapfile -t pkgs < <(grep -v '^#' scripts/mutation.conf | awk 'NF {print $1}')
fi

# A mutant whose tests time out counts as killed (listed on stderr: rerun
# with a larger GREMLINS_TIMEOUT when the machine was busy).
printf '%-18s %8s %7s %9s  %s\n' package mutants killed efficacy date
for pkg in "${pkgs[@]}"; do
  files=$(awk -v p="$pkg" '$1 == p {$1 = ""; print}' scripts/mutation.conf)
  if [ -z "$files" ]; then
    echo "mutation.sh: $pkg is not in scripts/mutation.conf" >&2
    exit 2
  fi
  excludes=()
  if [ "$(echo $files)" != "*" ]; then
    for f in "$pkg"/*.go; do
      base=$(basename "$f")
      case "$base" in *_test.go) continue ;; esac
      if ! [[ " $files " == *" $base "* ]]; then
        excludes+=(--exclude-files "^${pkg#./}/${base//./\\.}$")
      fi
    done
  fi
  out="$scratch/.gremlins-$(echo "${pkg#./}" | tr / _).json"
  "${gremlins[@]}" unleash --workers "$workers" --timeout-coefficient "${GREMLINS_TIMEOUT:-10}" "${excludes[@]}" "$pkg" >"$out.log" 2>&1 || true
  num() { grep -oE "$1: [0-9]+" "$out.log" | tail -1 | grep -oE '[0-9]+$' || echo 0; }
  killed=$(num Killed) lived=$(num Lived) notcov=$(num 'Not covered') timedout=$(num 'Timed out')
  hk=0 hs=0
  dir="scripts/mutants/$(echo "${pkg#./}" | tr / _)"
  if [ -d "$dir" ]; then
    for patch in "$dir"/*.patch; do
      [ -e "$patch" ] || continue
      git apply "$patch"
      if go test -count=1 "$pkg" >/dev/null 2>&1; then
        hs=$((hs + 1))
        echo "  survived: $patch" >&2
      else
        hk=$((hk + 1))
      fi
      git apply -R "$patch"
    done
  fi
  grep -E '^ *(LIVED|NOT COVERED|TIMED OUT)' "$out.log" | sed "s|^|  $pkg |" >&2 || true
  k=$((killed + timedout + hk))
  total=$((k + lived + notcov + hs))
  eff=$(awk -v k=$k -v t=$total 'BEGIN { if (t == 0) print "n/a"; else printf "%.1f%%", 100 * k / t }')
  printf '%-18s %8d %7d %9s  %s\n' "$pkg" "$total" "$k" "$eff" "$(date +%F)"
done
