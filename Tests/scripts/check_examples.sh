#!/usr/bin/env bash
# Builds Examples/c and Examples/cpp against the installed package (as users' projects would be)
# and runs each against the real V4 service: open with a defining request, read, create offline,
# upload, download. Each must end with "the agency is there".
# Usage: check_examples.sh BUILD_DIR SOURCE_DIR PYTHON
set -euo pipefail
build_dir=$1
source_dir=$2
python=$3
work=$(mktemp -d /tmp/ood-examples-XXXXXX)
trap 'rm -rf "$work"' EXIT

cmake --install "$build_dir" --prefix "$work/prefix" > "$work/install.log"
for example in c cpp; do
  cmake -S "$source_dir/Examples/$example" -B "$work/$example" -DCMAKE_PREFIX_PATH="$work/prefix" \
        -DCMAKE_BUILD_TYPE=Release > "$work/$example-configure.log"
  cmake --build "$work/$example" > "$work/$example-build.log"
done
for program in "$work/c/travel" "$work/cpp/travel_cpp"; do
  name=$(basename "$program")
  echo "== $name"
  output=$("$source_dir/Tests/scripts/with_backend.sh" "$python" v4 -- "$program" "$work/$name.store")
  echo "$output"
  grep -q "after the download: the agency is there" <<< "$output" || { echo "$name did not finish the loop"; exit 1; }
done
echo "examples: the C and C++ examples built against the installed package and did the whole loop"
