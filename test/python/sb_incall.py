"""Payloads run in-process with the Python layer as a call has it: the
validator, the compiled guards, the restricted builtins and imports, and
the libraries' guards on.  No OS layer.  Shared by the review suites
(test_review_fixes, test_mpl_review, test_rev23, test_rev26, test_rev27):

    from sb_incall import run
    run(source, allowed)     # main()'s result, or the exception it raised
"""

import os
import sys
import textwrap

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "src", "python"))

import sb_charts  # noqa: E402
import sb_guard  # noqa: E402
import sb_harden  # noqa: E402
import sb_validator  # noqa: E402

with sb_charts.home():
    import matplotlib  # noqa: E402,F401
    sb_charts.prepare()
sb_harden.harden_pandas()
sb_harden.harden_numpy()
sb_harden.harden_native_loads()
sb_harden.harden_processes()
sb_harden.harden_libraries()


def run(source, allowed):
    """Validate source under allowed, run its main() as a call would."""
    source = textwrap.dedent(source)
    findings = sb_validator.validate(source, allowed)[0]
    if findings:
        raise AssertionError("validator: %r" % (findings,))
    namespace = sb_guard.make_globals(allowed, print)
    code = sb_guard.compile_user_code(source, "<sandbox>")
    sb_guard.set_pandas_guard(True)
    try:
        exec(code, namespace)
        return namespace["main"]()
    finally:
        sb_guard.leave_call()
        sb_charts.end_call()
