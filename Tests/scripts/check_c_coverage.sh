#!/usr/bin/env bash
# The C test suite calls every function the header declares (issue 8): a function added to the
# header without a C test fails this check.
# Usage: check_c_coverage.sh HEADER TEST_SOURCE...
set -euo pipefail
header=$1; shift
declared=$(grep -E '^OOD_API ' "$header" | grep -oE '\bood_[a-z0-9_]+ *\(' | tr -d ' (' | sort -u)
missing=""
for function in $declared; do
  if ! grep -qE "\b${function} *\(" "$@"; then missing+="  $function"$'\n'; fi
done
count=$(echo "$declared" | wc -l)
if [ -n "$missing" ]; then
  echo "declared in the header but called by no C test:"; printf '%s' "$missing"; exit 1
fi
echo "the C tests call all $count functions of the header"
