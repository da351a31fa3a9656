#!/bin/sh
# test/quickstart.sh - set up everything on a fresh Debian 12 machine (as
# root), start a throwaway cluster and run a worked example.
set -eu
cd "$(dirname "$0")/.."
export PYSANDBOX_TEST_DIR=${PYSANDBOX_TEST_DIR:-/tmp/pysandbox-test}
export PGHOST=$PYSANDBOX_TEST_DIR PGPORT=${PGPORT:-54329} PGUSER=postgres PGDATABASE=postgres

sh test/setup.sh
sh test/cluster.sh start

psql -X -v ON_ERROR_STOP=1 <<'SQL'
CREATE EXTENSION pysandbox;
CREATE TABLE sales(region text, amount numeric, sold_on date);
INSERT INTO sales
SELECT (ARRAY['north','south','east','west'])[1 + i % 4], (i % 97) * 1.5, DATE '2024-01-01' + i % 60
FROM generate_series(1, 10000) AS i;

\echo '-- total sales per region, computed by pandas in the sandbox'
SELECT jsonb_pretty(sandbox_execute($$
import pandas as pd

def main(sales, top=3):
    totals = sales.groupby('region')['amount'].sum().sort_values(ascending=False)
    print(f"{len(sales)} rows, {sales['region'].nunique()} regions")
    return totals.head(top).round(2)
$$, '{"sales": {"$table": "sales"}, "top": 2}'));

\echo '-- hostile code is stopped with a clear error'
\set ON_ERROR_STOP 0
SELECT sandbox_execute($$
import os
def main():
    return os.listdir('/')
$$);
SQL
echo "quickstart: done; the cluster keeps running (stop it with: sh test/cluster.sh stop)"
