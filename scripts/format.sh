#!/usr/bin/env bash
# Lays out C++ sources with the repository's .clang-format (CONTRIBUTING.md, "Style").
#   scripts/format.sh [FILE...]           # rewrites the files given, or every C++ source of core/,
#                                         # app/, widgets/, tests/ (not tests/data/) and fuzz/
#   scripts/format.sh --check [FILE...]   # changes nothing; names each file that would change, exit 1 if any
# Installs Debian's clang-format (14 on Debian 12) when it is missing.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
check=0
if [ "${1:-}" = --check ]; then check=1; shift; fi
command -v clang-format >/dev/null 2>&1 || "$root/scripts/deps.sh" clang-format
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  cd "$root"
  mapfile -t files < <(git ls-files 'core/*.cpp' 'core/*.hpp' 'app/*.cpp' 'app/*.hpp' 'widgets/*.cpp' 'widgets/*.hpp' \
                                    'tests/*.cpp' 'tests/*.hpp' 'fuzz/*.cpp' 'fuzz/*.hpp' | grep -v '^tests/data/')
fi
if [ "$check" = 1 ]; then
  changed=0
  for f in "${files[@]}"; do
    # Compared with clang-format's output: clang-format 14's --dry-run --Werror also flags a namespace's
    # closing comment that it would rewrite to the same text (`} // namespace a::inline B`).
    if ! clang-format "$f" | cmp -s - "$f"; then echo "$f"; changed=1; fi
  done
  exit "$changed"
fi
clang-format -i "${files[@]}"
