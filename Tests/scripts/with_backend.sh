#!/usr/bin/env bash
# Runs a command against one of the real test services (Tests/backends/): starts it on a free port,
# appends its service root to the command's arguments, and stops it when the command ends.
# Usage: with_backend.sh PYTHON v4|v2 [backends.py serve options...] -- COMMAND [ARGS...]
set -euo pipefail
python=$1; kind=$2; shift 2
serve_options=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do serve_options+=("$1"); shift; done
shift
here=$(cd "$(dirname "$0")/.." && pwd)
output=$(mktemp)
"$python" "$here/backends/backends.py" serve "$kind" "${serve_options[@]}" > "$output" &
backend=$!
trap 'kill "$backend" 2>/dev/null; wait "$backend" 2>/dev/null; rm -f "$output"' EXIT
for _ in $(seq 1 600); do
  root=$(head -n 1 "$output")
  if [ -n "$root" ]; then break; fi
  if ! kill -0 "$backend" 2>/dev/null; then echo "the $kind backend did not start" >&2; exit 1; fi
  sleep 0.1
done
if [ -z "$root" ]; then echo "the $kind backend did not start in 60 s" >&2; exit 1; fi
"$@" "$root"
