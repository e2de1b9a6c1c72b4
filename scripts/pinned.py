"""The Python and mpmath the generators expect; scripts/requirements.txt pins mpmath.

A new mpmath minor release may change an algorithm (findroot, quad, erfc) in a last digit, and
one such digit moves a rounded double in a fixture; the drift check (scripts/check-generated.mjs)
would then fail with a diff that does not name its cause, or `npm run generate` would quietly
commit another mpmath's numbers. So another major.minor is refused: moving to it is a deliberate
step (install it, edit requirements.txt, npm run generate, review the diff). Another patch release
only warns, since the check still compares every byte. (When pinned, Python 3.9, 3.11 and 3.13 and
mpmath 1.4.1 all wrote the same bytes; Python only needs math.nextafter.)
"""

import os
import re
import sys

MIN_PYTHON = (3, 9)  # math.nextafter
REQUIREMENTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "requirements.txt")
INSTALL = "pip install -r scripts/requirements.txt"


def pinned_mpmath():
    with open(REQUIREMENTS, encoding="utf-8") as f:
        return re.search(r"^mpmath==(\S+)$", f.read(), re.M).group(1)


def check():
    """Exit with a message unless Python and mpmath are the expected versions."""
    if sys.version_info < MIN_PYTHON:
        sys.exit("%s needs Python >= %d.%d, not %s" % (sys.argv[0], *MIN_PYTHON, sys.version.split()[0]))
    want = pinned_mpmath()
    try:
        import mpmath
    except ImportError:
        sys.exit("%s needs mpmath %s: %s" % (sys.argv[0], want, INSTALL))
    have = mpmath.__version__
    if have.split(".")[:2] != want.split(".")[:2]:
        sys.exit("%s needs mpmath %s (scripts/requirements.txt), not %s: %s"
                 % (sys.argv[0], want, have, INSTALL))
    if have != want:
        print("warning: mpmath %s, not the pinned %s; the outputs may differ in a last digit"
              % (have, want), file=sys.stderr)
