# ruff: noqa: E402
"""The Python guide's examples (docs/python.md cuts its code from here); tests/python runs it."""

import threading

# [basics.begin]
import mxffi
import mxffi.testing as t  # the "testing.*" globals, as a module

assert t.add(1, 2) == 3
assert t.add(40) == 41  # b defaults to 1, from the registered signature
assert t.add(b=5, a=1) == 6  # keywords map to positions
assert t.echo("hello, world") == "hello, world"
assert t.echo([1, 2.5, "x"]) == [1, 2.5, "x"]  # a list comes back as an mxffi.Array
assert dict(t.echo({"k": 1})) == {"k": 1}  # a dict as an mxffi.Map
# [basics.end]


# [callbacks.begin]
@mxffi.register_func("demo.square")
def square(x):
    return x * x


# C++ calls the Python function; here from a thread that C++ started.
assert t.apply(mxffi.get_global_func("demo.square"), 7) == 49
assert t.apply_in_thread(lambda: threading.get_ident()) != threading.get_ident()
# [callbacks.end]

# [errors.begin]
try:
    t.add(1 << 63, 1)
except OverflowError as e:
    assert str(e) == "testing.add: argument #0 'a' value 9223372036854775808 does not fit in int64"


class Stop(Exception):
    pass


def fail():
    raise Stop("from a callback")


try:
    t.apply(fail)  # Python -> C++ -> Python: the callback's own exception comes back
except Stop as e:
    assert str(e) == "from a callback"
# [errors.end]

# [arrays.begin]
import numpy as np

a = np.arange(12.0).reshape(3, 4)
assert t.tensor_first_f64(a[1:, 2:]) == 6.0  # a borrowed DLTensor view: no copy
# [arrays.end]
print("python_tour: ok")
