# Advanced indexing of mxffi.NDArray with numpy's rules: integer arrays (mxffi, numpy, lists),
# boolean masks and bools, mixed with basic indices. The basic part becomes a view; the integer
# arrays are broadcast together (zero-stride views) and, with the axes they index moved next to
# each other, go to one gather (getitem) or scatter (setitem) op. numpy's placement: where the
# advanced indices are adjacent in the key their result dimensions replace them in place,
# otherwise they come first.

cdef object _F_GATHER = None     # ndarray.advanced_gather(x, axis, *indices)
cdef object _F_SCATTER = None    # ndarray.advanced_scatter(x, values, axis, *indices), in place
cdef object _F_BOOL_GATHER = None   # ndarray.boolean_gather(x, axis, mask)
cdef object _F_BOOL_SCATTER = None  # ndarray.boolean_scatter(x, values, axis, mask), in place
cdef object _F_NONZERO = None    # np.nonzero


def _init_indexing():
    global _F_GATHER, _F_SCATTER, _F_BOOL_GATHER, _F_BOOL_SCATTER, _F_NONZERO
    _F_GATHER = get_global_func("ndarray.advanced_gather", allow_missing=True)
    _F_SCATTER = get_global_func("ndarray.advanced_scatter", allow_missing=True)
    _F_BOOL_GATHER = get_global_func("ndarray.boolean_gather", allow_missing=True)
    _F_BOOL_SCATTER = get_global_func("ndarray.boolean_scatter", allow_missing=True)
    _F_NONZERO = get_global_func("np.nonzero", allow_missing=True)


cdef int _need(fn, str name) except -1:
    if fn is None:
        raise NotImplementedError(f"mxffi.NDArray: advanced indexing needs {name}, which this "
                                  "build of mxffi does not have")
    return 0


cdef object _int64_dtype():
    cdef DLDataType t
    t.code = 0
    t.bits = 64
    t.lanes = 1
    return _dtype_object(t)


cdef object _index_array(item, device):
    """item (an integer or boolean array-like) as an mxffi array on device."""
    if isinstance(item, NDArray):
        arr = item
    elif type(item) is list and len(item) == 0:
        arr = _np_asarray(item, dtype=_int64_dtype())
    else:
        try:
            arr = _np_asarray(item)
        except (TypeError, ValueError) as e:
            raise IndexError(f"only integers, slices (`:`), ellipsis (`...`), numpy.newaxis "
                             f"(`None`) and integer or boolean arrays are valid indices; "
                             f"{type(item).__name__} could not be read as an array: {e}") from None
    cdef DLTensor* t = _tensor(arr)
    if _stype(arr) != kMXFFIStorageDefault:
        raise IndexError("mxffi.NDArray: a sparse array cannot be an index; convert it with "
                         "tostype('default') first")
    if t.dtype.code not in (0, 1, 6) or t.dtype.lanes != 1:
        raise IndexError("arrays used as indices must be of integer (or boolean) type; got "
                         f"{arr.dtype}")
    if arr.device != device:
        arr = _F_TO_DEVICE(arr, device)
    return arr


cdef object _broadcast_to(arr, tuple shape):
    """A zero-stride view of arr with the given shape (arr's shape broadcasts to it)."""
    cdef DLTensor* t = _tensor(arr)
    cdef int64_t st[_MAX_DIMS]
    cdef int64_t dims[_MAX_DIMS]
    cdef int64_t strides[_MAX_DIMS]
    cdef int n = len(shape), i, j
    if arr.shape == shape:
        return arr
    _elem_strides(t, st)
    for i in range(n):
        dims[i] = shape[i]
        j = i - (n - t.ndim)
        strides[i] = st[j] if j >= 0 and t.shape[j] == dims[i] else 0
    return _make_view(arr, 0, n, dims, strides)


cdef tuple _broadcast_shapes(list arrays):
    cdef int n = 0
    for a in arrays:
        n = max(n, a.ndim)
    out = [1] * n
    for a in arrays:
        s = a.shape
        for i in range(len(s)):
            k = n - len(s) + i
            if s[i] != 1:
                if out[k] != 1 and out[k] != s[i]:
                    raise IndexError("shape mismatch: indexing arrays could not be broadcast "
                                     "together with shapes " +
                                     " ".join(str(x.shape).replace(" ", "") for x in arrays))
                out[k] = s[i]
    return tuple(out)


cdef tuple _prepare_advanced(obj, tuple items):
    """(view, broadcast index arrays, axis): obj[items] is gather(view, indices, axis)."""
    cdef DLTensor* t = _tensor(obj)
    device = obj.device
    entries = []
    cdef int consumed = 0
    cdef bint seen_ellipsis = False
    for item in items:
        tp = type(item)
        if tp is slice:
            entries.append((0, item))
            consumed += 1
        elif item is None:
            entries.append((1, None))
        elif item is Ellipsis:
            if seen_ellipsis:
                raise IndexError("an index can only have a single ellipsis ('...')")
            seen_ellipsis = True
            entries.append((2, None))
        elif tp is bool or (_np_bool_type is not None and tp is _np_bool_type):
            entries.append((4, bool(item)))
        elif _is_basic_int(item):
            # Beside an array, an integer is an advanced index too (a 0-d one).
            entries.append((3, _np_asarray(item.__index__(), dtype=_int64_dtype(),
                                           device=device)))
            consumed += 1
        else:
            arr = _index_array(item, device)
            if _tensor(arr).dtype.code == 6:
                if arr.ndim == 0:
                    entries.append((4, bool(arr)))
                else:
                    entries.append((5, arr))
                    consumed += arr.ndim
            else:
                entries.append((3, arr))
                consumed += 1
    if consumed > t.ndim:
        raise IndexError(f"too many indices for array: array is {t.ndim}-dimensional, but "
                         f"{consumed} were indexed")
    basic = []
    positions = []
    indices = []
    # numpy's placement looks at the key: advanced entries with no slice, None or Ellipsis
    # between them (an Ellipsis standing for no axes still separates) are adjacent.
    key_positions = [i for i, (kind, _) in enumerate(entries) if kind >= 3]
    adjacent = key_positions == list(range(key_positions[0], key_positions[0] + len(key_positions)))
    cdef int vd = 0, in_dim = 0
    for kind, value in entries:
        if kind == 0:
            basic.append(value)
            vd += 1
            in_dim += 1
        elif kind == 1:
            basic.append(None)
            vd += 1
        elif kind == 2:
            basic.append(Ellipsis)
            vd += t.ndim - consumed
            in_dim += t.ndim - consumed
        elif kind == 3:
            basic.append(slice(None))
            positions.append(vd)
            indices.append(value)
            vd += 1
            in_dim += 1
        elif kind == 4:
            # A bool: a new axis of extent 1, indexed by [0] (True) or [] (False).
            basic.append(None)
            positions.append(vd)
            indices.append(_np_asarray([0] if value else [], dtype=_int64_dtype(),
                                       device=device))
            vd += 1
        else:
            mshape = value.shape
            for j in range(len(mshape)):
                # numpy lets an empty extent of a mask stand against any extent: it selects
                # nothing there.
                if mshape[j] != t.shape[in_dim + j] and mshape[j] != 0:
                    raise IndexError(
                        f"boolean index did not match indexed array along axis {in_dim + j}; "
                        f"size of axis is {t.shape[in_dim + j]} but size of corresponding "
                        f"boolean axis is {mshape[j]}")
            _need(_F_NONZERO, "np.nonzero")
            for idx in _F_NONZERO(value):
                basic.append(slice(None))
                positions.append(vd)
                indices.append(idx)
                vd += 1
            in_dim += len(mshape)
    view = _basic_view(obj, t, tuple(basic))
    bshape = _broadcast_shapes(indices)
    indices = [_broadcast_to(a, bshape) for a in indices]
    if adjacent:
        return view, indices, positions[0]
    # Not adjacent: the indexed axes go first, in key order; the result's dimensions with them.
    cdef int perm[_MAX_DIMS]
    cdef int k = 0
    cdef DLTensor* vt = _tensor(view)
    for p in positions:
        perm[k] = p
        k += 1
    for d in range(vt.ndim):
        if d not in positions:
            perm[k] = d
            k += 1
    return _permuted(view, vt, perm), indices, 0


cdef object _single_array_key(obj, tuple items):
    """The index array of a key that is one integer or boolean array of at least one dimension
    (a[idx], a[mask]), on obj's device; None for any other key."""
    if len(items) != 1:
        return None
    item = items[0]
    if type(item) is bool or (_np_bool_type is not None and type(item) is _np_bool_type):
        return None
    arr = _index_array(item, obj.device)
    if arr.ndim == 0:
        return None
    return arr


cdef object _advanced_getitem(obj, tuple items):
    arr = _single_array_key(obj, items)
    if arr is not None:
        # One array: the op takes it as it is, with no view or broadcast made here.
        if _tensor(arr).dtype.code == 6:
            _need(_F_BOOL_GATHER, "ndarray.boolean_gather")
            return _F_BOOL_GATHER(obj, 0, arr)
        _need(_F_GATHER, "ndarray.advanced_gather")
        return _F_GATHER(obj, 0, arr)
    view, indices, axis = _prepare_advanced(obj, items)
    _need(_F_GATHER, "ndarray.advanced_gather")
    return _F_GATHER(view, axis, *indices)


cdef int _advanced_setitem(obj, tuple items, value) except -1:
    if not _writable(obj):
        raise ValueError("assignment destination is read-only")
    arr = _single_array_key(obj, items)
    if arr is not None:
        if _tensor(arr).dtype.code == 6:
            _need(_F_BOOL_SCATTER, "ndarray.boolean_scatter")
            _F_BOOL_SCATTER(obj, value, 0, arr)
        else:
            _need(_F_SCATTER, "ndarray.advanced_scatter")
            _F_SCATTER(obj, value, 0, arr)
        return 0
    view, indices, axis = _prepare_advanced(obj, items)
    _need(_F_SCATTER, "ndarray.advanced_scatter")
    _F_SCATTER(view, value, axis, *indices)
    return 0
