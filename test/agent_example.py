#!/usr/bin/python3
"""An agent's repair loop with sandbox_run: run, read the report, fix, run again.

Each attempt stands for code a language model wrote; a real agent would send
the report back to the model and ask it for a fix.
"""
import json
import sys

import psycopg2

ATTEMPTS = [
    # 1: imports a module the sandbox refuses -> a validation error
    """
import os
import pandas as pd

def main(sales):
    return sales.groupby("region")["amount"].sum().to_dict()
""",
    # 2: no more os, but a wrong column name -> an exception, with its line
    """
import pandas as pd

def main(sales):
    totals = sales.groupby("region")["amount_usd"].sum()
    return totals.to_dict()
""",
    # 3: fixed
    """
import pandas as pd

def main(sales):
    totals = sales.groupby("region")["amount"].sum()
    print(f"{len(sales)} rows, {len(totals)} regions")
    return totals.round(2).to_dict()
""",
]
INPUTS = {"sales": {"$table": "agent_sales"}}
OPTIONS = {"timeout_ms": 5000,
           "verify": 'assert all(v > 0 for v in result["main"].values())'}
EXPECTED = {"north": 15.5, "south": 20.0}


def show(error):
    """Print what an agent would read in a failed run's report."""
    where = f" at line {error['line']}, column {error['col']}" if error["line"] else ""
    rule = f" (rule {error['rule']})" if error.get("rule") else ""
    print(f"  {error['kind']}{where}{rule}\n  {error['type']}: {error['message']}")
    if error["traceback"]:
        print(error["traceback"])
    if error["hint"]:
        print(f"  hint: {error['hint']}")


def agent():
    conn = psycopg2.connect("")   # PGHOST, PGPORT, PGUSER, PGDATABASE
    cur = conn.cursor()           # no autocommit: a failed run aborts nothing
    cur.execute("CREATE EXTENSION IF NOT EXISTS pysandbox")
    cur.execute("CREATE TEMP TABLE agent_sales (region text, amount numeric)")
    cur.execute("INSERT INTO agent_sales VALUES ('north', 10), ('south', 20), ('north', 5.5)")
    kinds = []
    for attempt, code in enumerate(ATTEMPTS, 1):
        cur.execute("SELECT sandbox_run(%s, %s, '{main}', %s)",
                    (code, json.dumps(INPUTS), json.dumps(OPTIONS)))
        report = cur.fetchone()[0]  # jsonb arrives as a dict
        if report["ok"]:
            print(f"attempt {attempt}: ok in {report['usage']['wall_ms']} ms")
            print("  stdout: " + report["stdout"].strip())
            print(f"  result: {report['returns']['main']}")
            break
        print(f"attempt {attempt}: failed")
        show(report["error"])
        kinds.append(report["error"]["kind"])
        print("  -> fixing the code and trying again")
    conn.rollback()
    return (report["ok"] and report["returns"]["main"] == EXPECTED
            and kinds == ["validation", "exception"])


if __name__ == "__main__":
    try:
        ok = agent()
    except Exception as exc:  # no connection, no extension, ...
        print(f"agent_example: {type(exc).__name__}: {exc}")
        ok = False
    print("agent_example: %d passed, %d failed" % (ok, not ok))
    sys.exit(0 if ok else 1)
