#!/usr/bin/env bash
# Installs the Debian packages railsim needs to build and test, only those missing.
# Safe to run again: with everything present it changes nothing and touches no network.
set -euo pipefail

packages=(
  cmake g++ ninja-build                                   # build
  libboost-graph-dev libboost-program-options-dev          # topology graphs, the CLI
  libeigen3-dev nlohmann-json3-dev libtbb-dev libfmt-dev   # fitting, scenarios, sweeps, tables
  libgtest-dev libgmock-dev librapidcheck-dev              # tests and property tests
  libbenchmark-dev                                         # bench/
  libjemalloc-dev                                          # the programs' heap, on huge pages
  libibverbs-dev                                           # the verbs probe
  chromium                                                 # renders the sweep report in a test
  help2man                                                 # man pages from --help
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$package")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
  sudo=(sudo)
fi
echo "tools/setup.sh: installing ${missing[*]}" >&2
"${sudo[@]}" apt-get update -q
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
