#!/bin/sh
# Installs the Debian packages G5 needs, only when something is missing.
# Checks with pkg-config (glib-2.0, yaml-0.1, hdf5-serial, gsl, mpi-c), the
# commands (pkg-config, gnuplot, h5dump, mpirun) and the system Python's h5py and pandas (which
# README's snippet and tests/run use to read results); runs apt-get only if
# one of them is absent.
# Without root or apt-get it prints what to install and exits non-zero.
set -u

pkgs="pkg-config libglib2.0-dev libyaml-dev libhdf5-dev libgsl-dev hdf5-tools gnuplot-nox python3-h5py python3-pandas libopenmpi-dev openmpi-bin"

missing=0
command -v pkg-config >/dev/null 2>&1 || missing=1
command -v gnuplot >/dev/null 2>&1 || missing=1
command -v h5dump >/dev/null 2>&1 || missing=1
command -v mpirun >/dev/null 2>&1 || missing=1
/usr/bin/python3 -c 'import h5py, pandas' >/dev/null 2>&1 || missing=1
if [ "$missing" -eq 0 ]; then
	for m in glib-2.0 yaml-0.1 hdf5-serial gsl mpi-c; do
		pkg-config --exists "$m" || missing=1
	done
fi
[ "$missing" -eq 0 ] && exit 0

say_what() {
	echo "g5: missing build dependencies; install them with:" >&2
	echo "    apt-get install $pkgs" >&2
}

if ! command -v apt-get >/dev/null 2>&1; then
	echo "g5: apt-get not found on this machine" >&2
	say_what
	exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
		SUDO="sudo -n"
	else
		echo "g5: not root, cannot install packages" >&2
		say_what
		exit 1
	fi
else
	SUDO=""
fi

echo "g5: installing missing Debian packages: $pkgs" >&2
export DEBIAN_FRONTEND=noninteractive
if ! $SUDO apt-get update -q >&2 ||
   ! $SUDO apt-get install -y -q --no-install-recommends $pkgs >&2; then
	echo "g5: apt-get failed" >&2
	say_what
	exit 1
fi
exit 0
