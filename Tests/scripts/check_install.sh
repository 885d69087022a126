#!/usr/bin/env bash
# Installs the package into an empty prefix, moves the prefix (the package must be relocatable),
# then builds a separate C program against it twice: with find_package(OfflineOData) and with
# pkg-config. Both must run and print the library version.
# Usage: check_install.sh BUILD_DIR SOURCE_DIR EXPECTED_VERSION
set -euo pipefail
build_dir=$1
source_dir=$2
expected="OfflineOData $3"
work=$(mktemp -d /tmp/ood-install-XXXXXX)
trap 'rm -rf "$work"' EXIT

cmake --install "$build_dir" --prefix "$work/first-prefix" > "$work/install.log"
mv "$work/first-prefix" "$work/prefix"
prefix="$work/prefix"
libdir=$(cd "$prefix" && ls -d lib*/ | head -n 1 | tr -d /)
for f in "$libdir/libofflineodata.so.$3" "$libdir/libofflineodata.so.0" "$libdir/libofflineodata.so" \
         include/offline_odata.h "$libdir/pkgconfig/offlineodata.pc" \
         "$libdir/cmake/OfflineOData/OfflineODataConfig.cmake" bin/offline-odata; do
  [ -e "$prefix/$f" ] || { echo "not installed: $f"; exit 1; }
done

# 1. CMake: find_package(OfflineOData) + target_link_libraries(... OfflineOData::offlineodata)
cmake -S "$source_dir/Tests/install/consumer" -B "$work/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" \
      -DCMAKE_BUILD_TYPE=Release > "$work/configure.log"
cmake --build "$work/cmake-build" > "$work/build.log"
out_cmake=$("$work/cmake-build/consumer")
echo "find_package consumer printed: $out_cmake"
[ "$out_cmake" = "$expected" ] || { echo "expected '$expected'"; exit 1; }

# 2. pkg-config: cc main.c $(pkg-config --cflags --libs offlineodata)
flags=$(PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig" pkg-config --cflags --libs offlineodata)
cc -std=c11 -Wall -Wextra -Werror -o "$work/pc-consumer" "$source_dir/Tests/install/consumer/main.c" $flags \
   -Wl,-rpath,"$prefix/$libdir"
out_pc=$("$work/pc-consumer")
echo "pkg-config consumer printed: $out_pc"
[ "$out_pc" = "$expected" ] || { echo "expected '$expected'"; exit 1; }
echo "install: both consumers built against the relocated prefix and ran"
