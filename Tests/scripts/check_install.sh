#!/usr/bin/env bash
# `make install PREFIX=...` into an empty prefix, then checks what it did: it made no Python venv
# and built no test, it installed the library (stripped, with its links), both headers, the tool
# (stripped), the pkg-config file and the CMake package; the prefix is relocatable (it is moved);
# a C and a C++ program build against it with find_package(OfflineOData) and with pkg-config, and run.
# Usage: check_install.sh SOURCE_DIR EXPECTED_VERSION [SWIFT_SCRATCH]   (the scratch folder of a library built already)
set -euo pipefail
source_dir=$1
version=$2
scratch=()
if [ -n "${3:-}" ]; then scratch=(SWIFT_SCRATCH="$3"); fi
expected="OfflineOData $version"
work=$(mktemp -d /tmp/ood-install-XXXXXX)
trap 'rm -rf "$work"' EXIT

# Run from ctest under make: this make is not part of the caller's.
unset MAKEFLAGS MFLAGS MAKELEVEL
# VENV points where make would create the venv if install needed it.
make -C "$source_dir" install PREFIX="$work/first-prefix" VENV="$work/venv" INSTALL_BUILD_DIR="$work/build" "${scratch[@]}" \
     > "$work/install.log" 2>&1 || { cat "$work/install.log"; exit 1; }
[ ! -e "$work/venv" ] || { echo "make install made a Python venv"; exit 1; }
tests_built=$(find "$work/build" -type f -executable -name 'test_*' | head -n 3)
[ -z "$tests_built" ] || { echo "make install built tests: $tests_built"; exit 1; }
grep -q '^OOD_BUILD_TESTS:BOOL=OFF' "$work/build/CMakeCache.txt" || { echo "the install build has tests on"; exit 1; }

mv "$work/first-prefix" "$work/prefix"
prefix="$work/prefix"
libdir=$(cd "$prefix" && ls -d lib*/ | head -n 1 | tr -d /)
for f in "$libdir/libofflineodata.so.$version" "$libdir/libofflineodata.so.0" "$libdir/libofflineodata.so" \
         include/offline_odata.h include/offline_odata.hpp "$libdir/pkgconfig/offlineodata.pc" \
         "$libdir/cmake/OfflineOData/OfflineODataConfig.cmake" bin/offline-odata; do
  [ -e "$prefix/$f" ] || { echo "not installed: $f"; exit 1; }
done
for binary in "$prefix/$libdir/libofflineodata.so.$version" "$prefix/bin/offline-odata"; do
  if readelf -S "$binary" | grep -qE '\.(symtab|debug_info)\b'; then echo "not stripped: $binary"; exit 1; fi
done
"$prefix/bin/offline-odata" --help > /dev/null || { echo "the installed tool does not run"; exit 1; }

metadata="$source_dir/Examples/FlightSample/metadata-v4.xml"
check_output() {  # NAME OUTPUT
  echo "$1 printed: $2"
  [ "$2" = "$expected" ] || { echo "expected '$expected'"; exit 1; }
}

# 1. CMake: find_package(OfflineOData) + target_link_libraries(... OfflineOData::offlineodata)
cmake -S "$source_dir/Tests/install/consumer" -B "$work/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" \
      -DCMAKE_BUILD_TYPE=Release > "$work/configure.log"
cmake --build "$work/cmake-build" > "$work/build.log"
check_output "find_package C consumer" "$("$work/cmake-build/consumer")"
check_output "find_package C++ consumer" "$("$work/cmake-build/consumer_cpp" "$metadata" "$work/cmake.store")"

# 2. pkg-config: cc main.c $(pkg-config --cflags --libs offlineodata), and c++ likewise
flags=$(PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig" pkg-config --cflags --libs offlineodata)
cc -std=c11 -Wall -Wextra -Werror -o "$work/pc-consumer" "$source_dir/Tests/install/consumer/main.c" $flags \
   -Wl,-rpath,"$prefix/$libdir"
check_output "pkg-config C consumer" "$("$work/pc-consumer")"
c++ -std=c++17 -Wall -Wextra -pedantic -Werror -o "$work/pc-consumer-cpp" "$source_dir/Tests/install/consumer/main.cpp" \
    $flags -Wl,-rpath,"$prefix/$libdir"
check_output "pkg-config C++ consumer" "$("$work/pc-consumer-cpp" "$metadata" "$work/pc.store")"
echo "install: no venv, no test build; stripped; C and C++ consumers built against the relocated prefix and ran"
