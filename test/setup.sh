#!/bin/sh
# test/setup.sh - install what pysandbox needs (Debian 12, as root), build
# it and install it into the system PostgreSQL 15.  Idempotent.
set -eu
cd "$(dirname "$0")/.."

if [ "$(id -u)" != 0 ]; then
	echo "test/setup.sh: run as root (it installs packages)" >&2
	exit 1
fi

PKGS="postgresql-15 postgresql-server-dev-15 postgresql-plpython3-15 libseccomp-dev
python3-dev python3-pandas python3-numpy python3-psycopg2 python3-tabulate python3-scipy python3-sklearn python3-statsmodels python3-matplotlib fonts-wqy-microhei libipc-run-perl
locales build-essential make clang-14 libclang-rt-14-dev iproute2 postgresql-15-plproxy"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
# Debian's CPython from 3.11.2-6+deb12u7: bytes.decode("unicode_escape",
# "replace") read freed memory before it (CVE-2025-4516, review 153 F3: a
# call crashed its process at will)
python_version=$(dpkg-query -W -f='${Version}' libpython3.11 2>/dev/null || echo 0)
if dpkg --compare-versions "$python_version" lt 3.11.2-6+deb12u7; then
	missing="$missing libpython3.11 libpython3.11-stdlib libpython3.11-minimal python3.11 python3.11-minimal libpython3.11-dev python3.11-dev"
fi
if [ -n "$missing" ]; then
	echo "== installing:$missing"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi

# a locale whose money has a decimal comma (sql/types.sql: lc_monetary)
if ! locale -a | grep -qi '^de_DE\.utf-\?8$'; then
	localedef -i de_DE -c -f UTF-8 de_DE.UTF-8
fi

echo "== building"
make -s clean >/dev/null 2>&1 || true
make -s
make -s install

if ldd /usr/lib/postgresql/15/lib/pysandbox.so | grep -q libpython; then
	echo "test/setup.sh: the extension library links libpython; it must not" >&2
	exit 1
fi
