#!/usr/bin/python3
"""An agent's repair loop with sandbox_run: run, read the report, fix, run again.

Each attempt stands for code a language model wrote; a real agent would send
the report back to the model and ask it for a fix.  Then the same analysis
as an agent does it in a workspace: describe the inputs (for the prompt),
load the table once, try a step that fails, fix it, build on what the
workspace kept, and draw it (a PNG).
"""
import base64
import json
import struct
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


# the analysis in five steps, in one workspace: (what the step does, code)
STEPS = [
    ("load the table once", """
def main(ws, sales):
    ws["sales"] = sales
    return len(sales)
"""),
    ("a first try, with a wrong column", """
def main(ws):
    return ws["sales"].groupby("region")["amount_usd"].sum()
"""),
    ("fixed: totals per region, kept", """
def main(ws):
    ws["totals"] = ws["sales"].groupby("region")["amount"].sum()
    return ws["totals"].round(2).to_dict()
"""),
    ("build on what was kept: shares", """
def main(ws):
    t = ws["totals"]
    return (t / t.sum()).round(3).to_dict()
"""),
    ("draw the totals", """
def main(ws):
    ax = ws["totals"].plot(kind="bar", title="Sales per region", figsize=(4, 3))
    ax.set_ylabel("amount")
    return ax.figure
"""),
]


def png_size(image):
    """(width, height) of a {"$image": "image/png", "data": base64} PNG, or None."""
    if not isinstance(image, dict) or image.get("$image") != "image/png":
        return None
    png = base64.b64decode(image["data"])
    if png[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    return struct.unpack(">II", png[16:24])


# what each step must return (a function: a check of the result)
STEP_RESULTS = [3, None, {"north": 15.5, "south": 20.0}, {"north": 0.437, "south": 0.563},
                lambda image: png_size(image) == (400, 300)]


def workspace_analysis(cur):
    """Describe, open, and run STEPS in one workspace; True if each step
    did what it should and the workspace kept its state throughout."""
    cur.execute("SELECT sandbox_describe(%s)", (json.dumps(INPUTS),))
    described = cur.fetchone()[0]["sales"]
    print("described for the prompt: " + ", ".join(
        "%s %s (%s)" % (c["name"], c["type"], c["dtype"]) for c in described["columns"]))
    cur.execute("SELECT sandbox_workspace_open('{\"timeout_ms\": 5000}')")
    ws = cur.fetchone()[0]
    ok = True
    for n, ((what, code), want) in enumerate(zip(STEPS, STEP_RESULTS), 1):
        inputs = INPUTS if n == 1 else {}
        cur.execute("SELECT sandbox_run(%s, %s, '{main}', %s)",
                    (code, json.dumps(inputs), json.dumps({"workspace": ws})))
        report = cur.fetchone()[0]
        if report["ok"] and callable(want):
            size = png_size(report["returns"]["main"])
            print(f"step {n} ({what}): ok in {report['usage']['wall_ms']} ms: a PNG of "
                  f"{size[0]}x{size[1]} pixels; figures left open: {len(report['figures'])}"
                  if size else f"step {n} ({what}): not a PNG: {report['returns']['main']!r:.80}")
            # the figure it returned is in returns only, not in figures too
            ok = ok and want(report["returns"]["main"]) and report["figures"] == []
        elif report["ok"]:
            print(f"step {n} ({what}): ok in {report['usage']['wall_ms']} ms: "
                  f"{report['returns']['main']}")
            ok = ok and report["returns"]["main"] == want
        else:
            print(f"step {n} ({what}): failed")
            show(report["error"])
            ok = ok and want is None and report["error"]["kind"] == "exception"
    cur.execute("SELECT calls, running FROM sandbox_workspace_list()")
    listed = cur.fetchall()
    print(f"workspace: {listed[0][0]} calls, running: {listed[0][1]}")
    cur.execute("SELECT sandbox_workspace_close(%s)", (ws,))
    return ok and listed == [(len(STEPS), True)] and cur.fetchone()[0] is True


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
    repaired = (report["ok"] and report["returns"]["main"] == EXPECTED
                and kinds == ["validation", "exception"])
    analysed = workspace_analysis(cur)
    conn.rollback()
    return repaired and analysed


if __name__ == "__main__":
    try:
        ok = agent()
    except Exception as exc:  # no connection, no extension, ...
        print(f"agent_example: {type(exc).__name__}: {exc}")
        ok = False
    print("agent_example: %d passed, %d failed" % (ok, not ok))
    sys.exit(0 if ok else 1)
