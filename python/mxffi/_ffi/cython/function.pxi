# Functions: mxffi.Function (its call goes through the C vectorcall slot in fastcall.h), global
# function lookup and registration, keyword arguments, and Python callables as C++ Functions.

cdef object _MISSING = object()
# name -> (arg_names, defaults, long_running, kinds, scalar) from registry.function_info (kinds:
# (positional_only, first_keyword_only, variadic_index), None when every argument is
# positional-or-keyword; scalar: at most three int/float/str/bool parameters); None when the
# function was registered without a signature.
cdef dict _INFO_CACHE = {}


cdef class Function(Object):
    """A packed function: a C++ function, a Python callable made callable from C++, or a
    closure returned by either. Calls convert arguments by type, with no string serialization.
    """

    cdef void* _vectorcall
    cdef int _flags
    cdef object _name
    cdef object _info
    cdef object _kw_plan
    cdef dict __dict__

    def __cinit__(self):
        self._vectorcall = MXFFIPyVectorcallPtr()
        self._name = None
        self._info = _MISSING

    def __call__(self, *args, **kwargs):
        # Reached only through tp_call (e.g. PyObject_Call); Python's own calls use the slot.
        if kwargs or self._vectorcall == MXFFIPyVectorcallBoundPtr():
            items = list(args) + list(kwargs.values())
            return _call_kw(self, PySequence_Fast_ITEMS(items), len(args), tuple(kwargs))
        return MXFFIPyCallPositional(<PyObject*>self, PySequence_Fast_ITEMS(args), len(args))

    def __get__(self, obj, objtype):
        # A Function stored on a class stays a plain function (like staticmethod); defining
        # __get__ also makes inspect and help() treat it as a routine.
        return self

    @property
    def name(self):
        """The global name this function was looked up by, or None."""
        return self._name

    def __getattr__(self, name):
        # Reached only for attributes found nowhere else: a global's signature is read from the
        # registry when inspect.signature or help() first asks (signature.lazy_signature).
        if name in ("__signature__", "__name__", "__qualname__") and self._name is not None:
            attrs = _lazy_signature(self, self._name)
            if attrs is not None:
                return attrs[name]
        return Object.__getattr__(self, name)

    @property
    def long_running(self):
        """Whether calls release the GIL (registered with set_long_running())."""
        return bool(self._flags & MXFFI_PY_RELEASE_GIL)

    def __repr__(self):
        if self._name is not None:
            return f"<mxffi.Function {self._name}>"
        return f"<mxffi.Function at 0x{<size_t>self.chandle:x}>"


cdef str _func_name(Function f):
    return f._name if f._name is not None else "mxffi.Function"


cdef object _func_info(Function f):
    """(arg_names, defaults, long_running, kinds, scalar) of a global function, or None;
    cached. scalar: whether its signature takes at most three ints, floats, strs or bools."""
    if f._info is not _MISSING:
        return f._info
    info = None
    if f._name is not None:
        info = _INFO_CACHE.get(f._name, _MISSING)
        if info is _MISSING:
            info = _query_info(f._name)
            _INFO_CACHE[f._name] = info
    f._info = info
    return info


# Parameter types (registry.function_info's arg_types) that MXFFIPyCallScalars converts.
_SCALAR_TYPES = frozenset(("int", "float", "str", "bool"))


cdef object _query_info(str name):
    try:
        m = _FUNCTION_INFO(name)
    except KeyError:
        return None
    names = tuple(_array_items(_MAP_GET(m, "arg_names")))
    defaults = tuple(_array_items(_MAP_GET(m, "defaults")))
    if not names and _MAP_GET(m, "num_args") < 0:
        names = None
    kinds = _parameter_kinds(names or (), lambda key: _MAP_GET(m, key))
    types = _array_items(_MAP_GET(m, "arg_types"))
    scalar = names is not None and len(types) <= 3 and all(t in _SCALAR_TYPES for t in types)
    text = _MAP_GET(m, "return_type") == "str"
    return (names, defaults, bool(_MAP_GET(m, "long_running")), kinds, scalar, text)


cdef list _array_items(arr):
    # Through the registered accessors, so this works before mxffi.Array is registered.
    return [_ARRAY_GET(arr, i) for i in range(_ARRAY_SIZE(arr))]


def get_global_func(name, allow_missing=False):
    """The global function registered under name.

    Raises ValueError when there is none, unless allow_missing (then returns None).
    """
    cdef void* handle = NULL
    if not isinstance(name, str):
        raise TypeError(f"mxffi.get_global_func: name must be a str, got {type(name).__name__}")
    if MXFFIFuncGetGlobal(name.encode("utf-8"), &handle) != 0:
        _raise_last_error(None)
    if handle == NULL:
        if allow_missing:
            return None
        raise ValueError(f"mxffi.get_global_func: no global function named '{name}'")
    cdef Function f = _make_object(handle)
    f._name = name
    if _FUNCTION_INFO is not None:
        info = _func_info(f)
        if info is not None and info[2]:
            f._flags |= MXFFI_PY_RELEASE_GIL
        if info is not None and info[3] is not None:
            _bind_by_kinds(f, info[3])
        elif info is not None and info[4]:
            # Functions that keep the GIL skip the test of the flag; those without
            # parameters, the loop over arguments too.
            if f._flags & MXFFI_PY_RELEASE_GIL:
                f._vectorcall = MXFFIPyVectorcallScalarsPtr()
            elif len(info[0]) == 0:
                f._vectorcall = MXFFIPyVectorcallNoArgsHeldPtr()
            elif info[5]:
                # A text result: the slot lends its call a buffer for it (docs/c_abi.md).
                f._vectorcall = MXFFIPyVectorcallScalarsHeldTextPtr()
            else:
                f._vectorcall = MXFFIPyVectorcallScalarsHeldPtr()
    return f


cdef void _bind_by_kinds(Function f, tuple kinds):
    # Keyword-only or variadic arguments, or a list result: calls go through
    # MXFFIPyFunctionVectorcallBound (fastcall.h), which binds by the signature all but the plain
    # positional calls (every call, for a variadic argument or a list result).
    if kinds[2] >= 0 or kinds[3]:
        f._flags |= MXFFI_PY_VARIADIC
    else:
        f._flags |= <int>min(kinds[1], 0x7FFF) << MXFFI_PY_MAX_POS_SHIFT
    f._vectorcall = MXFFIPyVectorcallBoundPtr()


def list_global_func_names():
    """The names of every registered global function, sorted."""
    cdef void* handle = NULL
    if MXFFIFuncListGlobalNames(&handle) != 0:
        _raise_last_error(None)
    return sorted(str(x) for x in _array_items(_make_object(handle)))


def _as_function(f):
    """A Python callable as an mxffi.Function (a Function is returned as is)."""
    if isinstance(f, Function):
        return f
    if not callable(f):
        raise TypeError(f"mxffi: expected a callable, got {type(f).__name__}")
    cdef void* handle = NULL
    Py_INCREF(f)
    if MXFFIFuncCreate(<void*>f, _py_callback, _py_release, &handle) != 0:
        Py_DECREF(f)
        _raise_last_error(None)
    return _make_object(handle)


def register_func(name=None, f=None, *, override=False):
    """Register a Python callable as a global function, callable from C++ and Python.

    As a decorator: @register_func("area.name") or @register_func (uses the function's
    __name__); directly: register_func("area.name", f). An existing name is replaced only with
    override=True; otherwise ValueError names it.
    """
    if callable(name) and f is None:
        return register_func(name.__name__, name, override=override)
    if not isinstance(name, str):
        raise TypeError(f"mxffi.register_func: name must be a str, got {type(name).__name__}")
    if not name:
        raise ValueError("mxffi.register_func: name is empty")

    def register(func):
        if not callable(func):
            raise TypeError(
                f"mxffi.register_func: '{name}' expected a callable, got {type(func).__name__}"
            )
        cdef Function fn = _as_function(func)
        if MXFFIFuncSetGlobal(name.encode("utf-8"), fn.chandle, 1 if override else 0) != 0:
            try:
                _raise_last_error(None)
            except MXFFIError as e:
                raise _named_error(e, "mxffi.register_func") from None
        _INFO_CACHE.pop(name, None)
        return func

    if f is not None:
        return register(f)
    return register


cdef enum:
    MAX_KW_ARGS = 16


cdef class _KwPlan:
    """Where each positional slot of a keyword call comes from, for one (nargs, kwnames).

    src[i] >= 0 takes the call's argument vector entry src[i]; src[i] < 0 takes
    defaults[-src[i] - 1]. Plans are made (and every keyword error raised) once per call site:
    the interpreter passes the same kwnames tuple object each time a call site runs.
    """

    cdef object kwnames
    cdef Py_ssize_t nargs
    cdef Py_ssize_t size
    cdef Py_ssize_t src[MAX_KW_ARGS]
    cdef list defaults
    # The variadic argument's slot (-1: none) and the positional arguments gathered into it.
    cdef Py_ssize_t pack_slot
    cdef Py_ssize_t pack_start
    cdef Py_ssize_t pack_stop
    # Whether the Array result is handed to Python as a list (registry: returns_list()).
    cdef bint returns_list


cdef _KwPlan _make_kw_plan(Function f, Py_ssize_t nargs, tuple kwnames):
    slots = _bind_keywords(_func_name(f), _func_info(f), nargs, kwnames)
    if len(slots) > MAX_KW_ARGS:
        raise TypeError(f"{_func_name(f)}: keyword calls take at most {MAX_KW_ARGS} arguments; "
                        "pass the rest positionally")
    cdef _KwPlan plan = _KwPlan.__new__(_KwPlan)
    plan.kwnames = kwnames
    plan.nargs = nargs
    plan.size = len(slots)
    plan.defaults = []
    plan.pack_slot = -1
    info = _func_info(f)
    plan.returns_list = info is not None and info[3] is not None and info[3][3]
    for i, slot in enumerate(slots):
        if isinstance(slot, range):
            plan.pack_slot = i
            plan.pack_start = slot.start
            plan.pack_stop = slot.stop
            plan.src[i] = 0
        elif isinstance(slot, tuple):
            plan.defaults.append(slot[0])
            plan.src[i] = -len(plan.defaults)
        else:
            plan.src[i] = slot
    return plan


cdef object _call_kw(Function f, PyObject** args, Py_ssize_t nargs, tuple kwnames):
    """Map keyword arguments to positions from the registered signature, then call."""
    cdef _KwPlan plan = <_KwPlan>f._kw_plan if f._kw_plan is not None else None
    if f.chandle == NULL:
        # The positional path's error, before the signature (which needs the handle) is read.
        return MXFFIPyCallPositional(<PyObject*>f, args, 0)
    if plan is None or plan.kwnames is not kwnames or plan.nargs != nargs:
        plan = _make_kw_plan(f, nargs, kwnames)
        f._kw_plan = plan
    cdef PyObject* vec[MAX_KW_ARGS]
    cdef Py_ssize_t i, k
    cdef list pack = None
    for i in range(plan.size):
        k = plan.src[i]
        vec[i] = args[k] if k >= 0 else <PyObject*>plan.defaults[-k - 1]
    if plan.pack_slot >= 0:
        pack = [<object>args[i] for i in range(plan.pack_start, plan.pack_stop)]
        vec[plan.pack_slot] = <PyObject*>pack
    if plan.returns_list:
        return list(MXFFIPyCallPositional(<PyObject*>f, vec, plan.size))
    return MXFFIPyCallPositional(<PyObject*>f, vec, plan.size)


cdef object _hook_call_kw(PyObject* func, PyObject** args, Py_ssize_t nargs, PyObject* kwnames):
    return _call_kw(<Function>func, args, nargs, <tuple>kwnames)


# ---------------------------------------------------------------------------------------------
# Python callables called from C++.

cdef void _py_release(void* resource) noexcept nogil:
    cdef PyGILState_STATE st
    if MXFFIPyIsFinalizing():
        return  # the interpreter is going away; its objects go with it
    st = MXFFIPyEnsureGIL()
    _decref(resource)
    PyGILState_Release(st)


cdef void _decref(void* resource) noexcept with gil:
    Py_DECREF(<object>resource)


cdef int _py_callback(void* resource, const MXFFIAny* args, int32_t num_args,
                      MXFFIAny* result) noexcept with gil:
    cdef int32_t i
    try:
        pyargs = [_view_to_py(&args[i]) for i in range(num_args)]
        ret = (<object>resource)(*pyargs)
        _py_to_owned(ret, result)
        return 0
    except BaseException as exc:
        _set_error_from_py(exc)
        return -1


cdef int _warn(const char* category, const char* message) noexcept nogil:
    # C++ warnings (mxffi::Warn) as Python's: the GIL taken through the exit gate, as for the
    # signal check; a filter that makes the warning an error hands that error back to C++.
    cdef PyGILState_STATE st = MXFFIPyEnsureGIL()
    cdef int rc = _warn_held(category, message)
    PyGILState_Release(st)
    return rc


cdef int _warn_held(const char* category, const char* message) noexcept with gil:
    try:
        _emit_warning(category.decode("utf-8", "replace"), message.decode("utf-8", "replace"))
    except BaseException as exc:
        _set_error_from_py(exc)
        return -1
    return 0


cdef int _check_signals() noexcept nogil:
    # Called by C++ loops with the GIL released: the GIL is taken through the exit gate.
    cdef PyGILState_STATE st = MXFFIPyEnsureGIL()
    cdef int rc = _check_signals_held()
    PyGILState_Release(st)
    return rc


cdef int _check_signals_held() noexcept with gil:
    try:
        PyErr_CheckSignals()
    except BaseException as exc:
        _set_error_from_py(exc)
        return -1
    return 0


# ---------------------------------------------------------------------------------------------
# Python exceptions crossing C++. A callback's exception waits in error._PENDING under a token
# until the outer Python caller raises it again. Its C++ error is made by error.set_foreign,
# which calls MXFFIForeignErrorReleased (fastcall.h) with the token when C++ drops the error
# (a thread's slot moving on, a caught error going out of scope); the next raise or stash then
# drops the exception and clears its frames. Nothing here may raise: an exception lost on the way
# into C++ would turn the callback's failure into a None result.

cdef enum:
    MAX_RELEASED = 1024

cdef void* _set_foreign_handle = NULL


cdef void _drop_released() noexcept:
    """Drop the exceptions whose C++ errors were freed (GIL held): the tokens C++ queued
    through MXFFIForeignErrorReleased (fastcall.h)."""
    cdef int64_t tokens[MAX_RELEASED]
    cdef int n, i
    n = MXFFIPyTakeReleased(tokens, MAX_RELEASED)
    for i in range(n):
        try:
            exc = _PENDING_ERRORS.pop(tokens[i], None)
            if exc is not None:
                _clear_frames(exc)
        except BaseException:
            pass


cdef void _clear_frames(exc) noexcept:
    """Free the locals of a dropped exception's frames (its traceback would keep them)."""
    try:
        tb = exc.__traceback__
        while tb is not None:
            try:
                tb.tb_frame.clear()
            except BaseException:  # a frame still running keeps its locals
                pass
            tb = tb.tb_next
    except BaseException:
        pass


cdef int64_t _stash(exc) noexcept:
    """Keep exc in the pending table; its token (0 when even that failed)."""
    cdef int64_t token
    try:
        token = next(_PENDING_TOKENS)
        _PENDING_ERRORS[token] = exc
        while len(_PENDING_ERRORS) > _MAX_PENDING_ERRORS:  # releases that never came
            _PENDING_ERRORS.pop(next(iter(_PENDING_ERRORS)), None)
        return token
    except BaseException:
        return 0


cdef str _py_error_kind(exc):
    try:
        for k in _BUILTIN_ERROR_KINDS:
            if isinstance(exc, _BUILTIN_ERROR_CLASSES[k]):
                return k
        return type(exc).__name__
    except BaseException:
        return "RuntimeError"


cdef str _py_error_message(exc):
    try:
        return str(exc)
    except BaseException:  # a broken __str__ (even one raising KeyboardInterrupt) hides nothing
        try:
            return f"<{type(exc).__name__}: unprintable message>"
        except BaseException:
            return "<unprintable message>"


cdef void _set_error_from_py(exc) noexcept:
    cdef MXFFIAny args[5]
    cdef MXFFIAny result
    cdef int64_t token
    cdef int i
    cdef bytes kind_b, message_b, backtrace_b
    _drop_released()
    token = _stash(exc)
    try:
        kind_b = _py_error_kind(exc).encode("utf-8", "replace")
        message_b = _py_error_message(exc).encode("utf-8", "replace")
        backtrace_b = _py_error_backtrace(exc, token).encode("utf-8", "replace")
    except BaseException:
        MXFFIErrorSet("RuntimeError", "a Python callback raised an exception that could not be "
                      "recorded (out of memory or at the recursion limit)", "")
        return
    if token != 0 and _set_foreign_handle != NULL:
        args[0].type_index = kMXFFIRawStr
        args[0].v_c_str = kind_b
        args[1].type_index = kMXFFIRawStr
        args[1].v_c_str = message_b
        args[2].type_index = kMXFFIRawStr
        args[2].v_c_str = backtrace_b
        args[3].type_index = kMXFFIInt
        args[3].v_int64 = token
        args[4].type_index = kMXFFIInt
        args[4].v_int64 = <int64_t><size_t>&MXFFIForeignErrorReleased
        for i in range(5):
            args[i].small_len = 0
        result.type_index = kMXFFINone
        if MXFFIFuncCall(_set_foreign_handle, args, 5, &result) == 0:
            return
    MXFFIErrorSet(kind_b, message_b, backtrace_b)


cdef str _py_error_backtrace(exc, int64_t token):
    """The text C++ keeps as the error's backtrace: the marker naming the token, then the
    Python traceback when it can be formatted (not at the recursion limit)."""
    head = f"{_PENDING_MARKER}{token}\n" if token != 0 else ""
    try:
        return head + _format_py_traceback(exc)
    except BaseException:
        return head


cdef object _raise_last_error(func):
    cdef const char* kind = NULL
    cdef const char* message = NULL
    cdef const char* backtrace = NULL
    MXFFIErrorGetLast(&kind, &message, NULL)
    k = kind.decode("utf-8", "replace")
    m = message.decode("utf-8", "replace")
    if func is not None and isinstance(func, Function):
        m = _with_callee(m, (<Function>func)._name)
    _drop_released()
    if _ERROR_LAST_BACKTRACE is None:  # during start-up
        MXFFIErrorGetLast(NULL, NULL, &backtrace)
        raise _make_error(k, m, backtrace.decode("utf-8", "replace"))
    try:
        bt = _ERROR_LAST_BACKTRACE()
    except BaseException:
        bt = ""  # that call's own error replaced the slot's; the message is what matters
    if bt is None or isinstance(bt, str):
        raise _make_error(k, m, bt or "")
    # A C++ error with raw frames: symbolised only if the backtrace is read.
    raise _make_lazy_error(k, m, _partial(_ERROR_BACKTRACE, bt))


cdef object _hook_raise(PyObject* func):
    return _raise_last_error(<object>func if func != NULL else None)


cdef void* _release_gil() noexcept nogil:
    return MXFFIPySaveThread()


cdef void _restore_gil(void* state) noexcept nogil:
    MXFFIPyRestoreThread(state)


def _close_gil_gate():
    """atexit: from now on no thread re-takes the GIL from C++ (see fastcall.h)."""
    MXFFIPyCloseGILGate()
