#!/usr/bin/env bash
# Installs the Debian packages the build and the tests need, if any is missing; with the argument
# `build`, only those the build of the library and the tool needs (make install).
# Needs root (or sudo) only when something is missing.
set -euo pipefail
packages=(libsqlite3-dev libxml2-dev libcurl4-openssl-dev pkg-config cmake ninja-build)
if [ "${1:-}" != "build" ]; then packages+=(valgrind python3-venv); fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "deps: all Debian packages present"
  exit 0
fi
echo "deps: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "deps: installed ${missing[*]}"
