#!/usr/bin/env bash
# The archives of `make dist` as a user without Swift gets them: the checksums hold; the source
# archive holds the package and no build folder; the binary archive, unpacked into a fresh prefix,
# runs its tool, and the C and C++ quickstarts build against it (pkg-config) and run against the
# sample service; the wheel installs into a fresh venv and the Python quickstart runs. No folder
# holding a `swift` is on PATH for any of it.
# Usage: check_dist.sh SOURCE_DIR DIST_DIR PYTHON   (PYTHON: the venv with the test services' packages)
set -euo pipefail
source_dir=$(cd "$1" && pwd)
dist=$(cd "$2" && pwd)
python=$3
work=$(mktemp -d /tmp/ood-dist-XXXXXX)
trap 'rm -rf "$work"' EXIT

PATH=$(tr ':' '\n' <<<"$PATH" | while read -r folder; do
         if [ -n "$folder" ] && [ ! -e "$folder/swift" ]; then echo "$folder"; fi
       done | paste -sd:)
export PATH
if command -v swift > /dev/null; then echo "swift is still on PATH"; exit 1; fi

(cd "$dist" && sha256sum --check --quiet SHA256SUMS)
source_archive=$(ls "$dist"/offline-odata-[0-9]*.[0-9]*.[0-9]*.tar.gz | grep -v -- '-linux-' | head -n 1)
version=$(basename "$source_archive" .tar.gz | sed 's/^offline-odata-//')
listing=$(tar -tzf "$source_archive")
grep -qx "offline-odata-$version/Package.swift" <<<"$listing" || { echo "the source archive lacks Package.swift"; exit 1; }
if grep -qE '/(\.build[^/]*|build[^/]*|dist|\.venv)/' <<<"$listing"; then echo "the source archive holds build output"; exit 1; fi

mkdir "$work/prefix"
tar -C "$work/prefix" -xzf "$dist/offline-odata-$version-linux-$(uname -m).tar.gz"
prefix="$work/prefix/offline-odata-$version"
printed=$("$prefix/bin/offline-odata" --version)
[ "$printed" = "$version" ] || { echo "the tool says '$printed', not $version"; exit 1; }
libdir=$(cd "$prefix" && ls -d lib*/ | head -n 1 | tr -d /)
flags=$(PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig" pkg-config --cflags --libs offlineodata)
quickstart="$source_dir/Examples/quickstart"
cc -std=c11 -Wall -Wextra -Werror -o "$work/quickstart-c" "$quickstart/quickstart.c" $flags -Wl,-rpath,"$prefix/$libdir"
c++ -std=c++17 -Wall -Wextra -Werror -o "$work/quickstart-cpp" "$quickstart/quickstart.cpp" $flags -Wl,-rpath,"$prefix/$libdir"

"$python" -m venv "$work/venv"
"$work/venv/bin/python" -m pip install --quiet --no-index "$dist"/offline_odata-"$version"-*.whl

cd "$work"
backend="$source_dir/Tests/scripts/with_backend.sh"
"$backend" "$python" v4 -- "$work/quickstart-c"
"$backend" "$python" v4 -- "$work/quickstart-cpp"
"$backend" "$python" v4 -- "$work/venv/bin/python" "$quickstart/quickstart.py"
echo "dist $version: checksums hold; source archive clean; the binary archive's tool ran and the C and C++ quickstarts built against it and ran; the wheel's Python quickstart ran; no Swift on PATH"
