"""Wrong uses of mxffi's typed API, one a line: `mypy --strict` reports each
(tests/python/test_stubgen.py checks the lines it names)."""

import mxffi.np as mnp
import mxffi.testing as t
from mxffi import ops

n: str = t.add(1, 2)  # line 8: an int is no str
z = mnp.zeros((3, 4), dtyp="float32")  # line 9: no argument 'dtyp'
q = ops.quadratic(mnp.ones(3), d=2.0)  # line 10: quadratic has no parameter 'd'
w = t.concat("a", 2)  # line 11: b is a str
s = mnp.ones(3).shape + 1  # line 12: a tuple plus an int
