#!/usr/bin/env python3
"""tests/helpers/mktree.py DIR N: about N directories below DIR, wide and
deep as a real workspace is: node_modules/pP/dD (100 to a package) and,
before every tenth package, a chain src/cP/l0/l1/.../l39 (the first one,
src/c0/l0/.../l39, is always made: the deepest level the tests plant at).
For the big-workspace tests (t60 [F12]) and make bench; a few seconds for
100,000 (one mkdir each, no files)."""
import os
import sys

root, n = sys.argv[1], int(sys.argv[2])
made = p = 0
while made < n:
    if p % 10 == 0:
        os.makedirs(os.path.join(root, "src", "c%d" % p,
                                 *["l%d" % i for i in range(40)]))
        made += 42 if p == 0 else 41
    pkg = os.path.join(root, "node_modules", "p%d" % p)
    for d in range(min(100, max(n - made, 0))):
        os.makedirs(os.path.join(pkg, "d%d" % d))
        made += 1
    p += 1
