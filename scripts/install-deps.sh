#!/usr/bin/env bash
# Installs everything gpuroof needs to build and test on Debian 12, from Debian packages only.
# Idempotent: packages already present are left alone. Run as root (or with sudo available).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git clang-format
  libsqlite3-dev sqlite3 libfmt-dev libcli11-dev
  libtomlplusplus-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libsimdjson-dev zlib1g-dev
  libboost-math-dev nettle-dev
  # `mpirun -n P gpuroof ranks` (GPUROOF_MPI, on where MPI is found) and its ctest test.
  libopenmpi-dev openmpi-bin
  # The Python module (GPUROOF_PYTHON) and its tests, for Debian's /usr/bin/python3.
  pybind11-dev python3-dev python3-numpy python3-pandas python3-pytest
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
