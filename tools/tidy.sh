#!/usr/bin/env bash
# clang-tidy (the checks of .clang-tidy) over the project's sources, with the compile commands of
# a configured build folder.
#
#   tools/tidy.sh BUILD          the sources changed since the commit named in .ci/tidy-base,
#                                committed or not: what CI checks, in a few minutes
#   tools/tidy.sh BUILD --all    every source the build compiles (about 10 minutes on 2 cores)
#
# .ci/tidy-base names a commit whose every source passed: one that CI passed on (CI checks what
# changed since the base before it, and what did not change passed before). Moving it forward to
# the last commit CI passed on keeps CI's check short. A header is checked through one source
# that includes it (its own .cpp where it has one), as .clang-tidy's HeaderFilterRegex reports
# what lies in the project's headers.
set -euo pipefail
cd "$(dirname "$0")/.."

build=${1:?usage: tools/tidy.sh BUILD [--all]}
database="$build/compile_commands.json"
[ -f "$database" ] || { echo "tools/tidy.sh: no $database: configure $build first" >&2; exit 2; }

# The project's sources the build compiles, relative to the repository. The tests are left to the
# compiler's warnings (every one an error in CI): checking them would parse GoogleTest's headers
# in every test file.
mapfile -t compiled < <(grep -o '"file": "[^"]*"' "$database" | sed -e 's/^"file": "//' \
  -e 's/"$//' -e "s|^$PWD/||" | grep -E '^(sim|models|calibrate|scenarios|tools|bench)/' | sort -u)

if [ "${2:-}" = "--all" ]; then
  sources=("${compiled[@]}")
else
  base=$(cat .ci/tidy-base)
  if ! git cat-file -e "$base^{commit}" 2>/dev/null; then
    echo "tools/tidy.sh: .ci/tidy-base names $base, which this clone lacks: checking every source"
    exec "$0" "$build" --all
  fi
  declare -A compiled_set=()
  for unit in "${compiled[@]}"; do compiled_set[$unit]=1; done
  declare -A chosen=()
  while read -r file; do
    [ -f "$file" ] || continue  # deleted since
    if [ "${file##*.}" = cpp ]; then
      units=("$file")
    else
      # The header's own source first, then those that include it.
      mapfile -t units < <(echo "${file%.hpp}.cpp"; git grep -l -F "#include \"$file\"" -- '*.cpp')
    fi
    for unit in "${units[@]}"; do
      if [ -n "${compiled_set[$unit]:-}" ]; then
        chosen[$unit]=1
        break
      fi
    done
  done < <(git diff --name-only "$base" -- '*.cpp' '*.hpp')
  sources=()
  [ ${#chosen[@]} -eq 0 ] || mapfile -t sources < <(printf '%s\n' "${!chosen[@]}" | sort)
fi

echo "clang-tidy: ${#sources[@]} of ${#compiled[@]} sources"
[ ${#sources[@]} -eq 0 ] && exit 0
# xargs exits non-zero when any run does; .clang-tidy makes every warning an error. The count
# of warnings in system headers that clang-tidy prints for every source is left out.
printf '%s\n' "${sources[@]}" | xargs -P "$(nproc)" -n 1 clang-tidy -p "$build" --quiet \
  2> >(grep -v -E '^[0-9]+ warnings? generated\.$' >&2)
