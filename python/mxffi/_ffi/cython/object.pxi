# Objects: the Python side of a refcounted mxffi object, the type-key -> class registry, and
# the value types DataType and Device.

# type index -> Python class, filled by register_object.
cdef dict _CLASS_BY_INDEX = {}
# storage type (kMXFFIStorageRowSparse, kMXFFIStorageCSR, kMXFFIStorageCOO, or None for every
# storage type this
# build does not know) -> class of sparse NDArrays, filled by register_sparse_class.
cdef dict _SPARSE_CLASS = {}

# c_api.h's MXFFIStorageType: the frozen values of an NDArray's storage type field.
STORAGE_DEFAULT = kMXFFIStorageDefault
STORAGE_ROW_SPARSE = kMXFFIStorageRowSparse
STORAGE_CSR = kMXFFIStorageCSR
STORAGE_COO = kMXFFIStorageCOO


cdef class Object:
    """An mxffi object: a Python reference to a refcounted C++ object.

    Fields the C++ type declares for reflection read as attributes.
    """

    cdef void* chandle

    def __dealloc__(self):
        if self.chandle != NULL:
            MXFFIObjectFree(self.chandle)
            self.chandle = NULL

    def __init__(self, *args, **kwargs):
        raise TypeError(f"{type(self).__name__} objects are made by mxffi functions, not directly")

    @property
    def type_index(self):
        """The run-time type index of the C++ object."""
        self._checked_handle()
        return (<MXFFIObject*>self.chandle).type_index

    @property
    def type_key(self):
        """The type key, e.g. "mxffi.Array"."""
        self._checked_handle()
        return _type_index_to_key((<MXFFIObject*>self.chandle).type_index)

    @property
    def handle(self):
        """The object's address, as an int (0 once moved from)."""
        return <size_t>self.chandle

    def _checked_handle(self):
        if self.chandle == NULL:
            raise ValueError(f"{type(self).__name__}: the object handle is NULL")
        return <size_t>self.chandle

    def same_as(self, other):
        """Whether other refers to the very same C++ object."""
        return isinstance(other, Object) and (<Object>other).chandle == self.chandle

    def __eq__(self, other):
        return self.same_as(other)

    def __ne__(self, other):
        # Through ==, so that subclasses comparing by value (Array, Map, ADT) stay consistent.
        return not (self == other)

    def __hash__(self):
        return hash(<size_t>self.chandle)

    def __getattr__(self, name):
        if name.startswith("__") or self.chandle == NULL:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        try:
            return _GET_ATTR(self, name)
        except AttributeError:
            raise AttributeError(
                f"'{type(self).__name__}' object ({self.type_key}) has no attribute '{name}'"
            ) from None

    def _field_names(self):
        return _array_items(_FIELD_NAMES(self.type_index))

    def __repr__(self):
        if self.chandle == NULL:
            return f"{type(self).__name__}(NULL)"
        names = _array_items(_FIELD_NAMES(self.type_index))
        fields = ", ".join(f"{n}={_GET_ATTR(self, n)!r}" for n in names)
        return f"{self.type_key}({fields})"

    def __reduce__(self):
        raise TypeError(f"cannot pickle {self.type_key} objects")


cdef str _type_index_to_key(int32_t index):
    cdef const char* key = NULL
    if MXFFITypeIndex2Key(index, &key) != 0:
        _raise_last_error(None)
    return key.decode("utf-8")


def _type_key_to_index(str type_key):
    cdef int32_t index = 0
    if MXFFITypeKey2Index(type_key.encode("utf-8"), &index) != 0:
        _raise_last_error(None)
    return index


def register_object(type_key=None):
    """Class decorator: objects of type_key returned from C++ become instances of the class.

    The class must derive from mxffi.Object. Usable as @register_object("mxffi.Foo") or, for a
    class whose _type_key attribute names the type, as @register_object.
    """

    def register(cls):
        key = type_key if isinstance(type_key, str) else getattr(cls, "_type_key", None)
        if key is None:
            raise TypeError(f"mxffi.register_object: no type key given for {cls.__name__}")
        if not (isinstance(cls, type) and issubclass(cls, Object)):
            raise TypeError(
                f"mxffi.register_object: {_dtype.safe_repr(cls)} is not a subclass of mxffi.Object"
            )
        try:
            index = _type_key_to_index(key)
        except MXFFIError as e:
            raise _named_error(e, "mxffi.register_object") from None
        # The array type reads the NDArray layout in C: it must get NDArrays, and only them.
        if (index == kMXFFINDArray) != issubclass(cls, NDArray):
            raise TypeError(
                f"mxffi.register_object: {cls.__name__} for {key}: NDArrays are registered as "
                "subclasses of mxffi.NDArray, and subclasses of mxffi.NDArray as NDArrays only")
        _CLASS_BY_INDEX[index] = cls
        if index != kMXFFIFunction:
            MXFFIPySetClass(index, cls)
        if getattr(cls, "_type_key", None) != key or getattr(cls, "_type_index", None) != index:
            cls._type_key = key
            cls._type_index = index
        return cls

    if isinstance(type_key, type):
        cls, type_key = type_key, None
        return register(cls)
    if type_key is not None and not isinstance(type_key, str):
        raise TypeError(
            f"mxffi.register_object: type_key must be a str, got {type(type_key).__name__}"
        )
    return register


def register_sparse_class(stype, cls):
    """NDArray results stored as stype (STORAGE_ROW_SPARSE, STORAGE_CSR or STORAGE_COO) become
    instances of
    cls; stype None registers the class of arrays of a storage type this build does not know
    (opaque sparse arrays: never read as dense)."""
    if stype is None:
        slot = kMXFFIPyOpaqueSparse
    elif (stype in (kMXFFIStorageRowSparse, kMXFFIStorageCSR, kMXFFIStorageCOO)
          and not isinstance(stype, bool)):
        slot = stype
    else:
        raise ValueError(
            f"register_sparse_class: stype must be STORAGE_ROW_SPARSE ({kMXFFIStorageRowSparse}), "
            f"STORAGE_CSR ({kMXFFIStorageCSR}), STORAGE_COO ({kMXFFIStorageCOO}) or None, got "
            f"{_dtype.safe_repr(stype)}"
        )
    # Instances are made over the NDArray's C layout: only NDArray's subclasses have it.
    if not (isinstance(cls, type) and issubclass(cls, NDArray)):
        raise TypeError(
            "register_sparse_class: cls must be a subclass of mxffi.NDArray, got "
            f"{_dtype.safe_repr(cls)}"
        )
    _SPARSE_CLASS[stype] = cls
    MXFFIPySetSparseClass(slot, cls)


cdef object _make_object(void* handle):
    """Wrap an owned handle in the class registered for its type (Object if none)."""
    cdef int32_t index = (<MXFFIObject*>handle).type_index
    cdef Object obj
    if index == kMXFFIFunction:
        fn = Function.__new__(Function)
        (<Object>fn).chandle = handle
        return fn
    cls = _CLASS_BY_INDEX.get(index)
    if cls is None:
        cls = Object
    elif index == kMXFFINDArray and (<MXFFINDArrayObj*>handle).stype != kMXFFIStorageDefault:
        stype = (<MXFFINDArrayObj*>handle).stype
        if (stype != kMXFFIStorageRowSparse and stype != kMXFFIStorageCSR
                and stype != kMXFFIStorageCOO):
            stype = None  # a storage type this build does not know: an opaque sparse array
        cls = _SPARSE_CLASS.get(stype, cls)
    obj = Object.__new__(cls)
    obj.chandle = handle
    if index == kMXFFINDArray:
        MXFFIPyNDInit(<PyObject*>obj)
    return obj


cdef object _wrap_borrowed(MXFFIObject* handle):
    MXFFIObjectIncRef(handle)
    return _make_object(handle)


# ---------------------------------------------------------------------------------------------
# DataType and Device: plain values carried inline in the value cell.

# What a user wrote (a str, Python's float, numpy.float32, a numpy dtype) -> its DataType, so a
# repeated spelling costs one dict lookup; misses go to the C++ grammar (ndarray.parse_dtype).
# Only spellings that parse are kept.
cdef dict _DTYPE_CACHE = {}
_PARSE_DTYPE = None  # set by _init


cdef DataType _as_dtype(obj, caller):
    """obj as a DataType: a DataType as it is, anything else read by the one grammar, errors
    naming caller (a TypeError for a spelling that names no type mxffi has)."""
    if type(obj) is DataType:
        return <DataType>obj
    try:
        hit = _DTYPE_CACHE.get(obj)
    except TypeError:  # unhashable: not a data type either; dtype_text says so
        hit = None
    if hit is not None:
        return <DataType>hit
    if isinstance(obj, DataType):
        return _make_dtype((<DataType>obj).cdtype)
    text = str(obj) if isinstance(obj, str) else _dtype.dtype_text(obj, caller)
    parsed = _PARSE_DTYPE(text, caller)
    if len(_DTYPE_CACHE) < _dtype.CACHE_LIMIT:
        _DTYPE_CACHE[obj] = parsed
    return <DataType>parsed


# (code, bits, lanes) packed in an int -> the canonical name, which str(), == and hash() use.
cdef dict _DTYPE_NAMES = {}


cdef str _dtype_name(DLDataType t):
    key = <uint32_t>t.code | (<uint32_t>t.bits << 8) | (<uint32_t>t.lanes << 16)
    name = _DTYPE_NAMES.get(key)
    if name is None:
        name = _dtype.dtype_str(t.code, t.bits, t.lanes)
        if len(_DTYPE_NAMES) < _dtype.CACHE_LIMIT:
            _DTYPE_NAMES[key] = name
    return name


cdef class DataType:
    """A data type: DataType("float32"), DataType("f4"), DataType(float), DataType(numpy.int8),
    DataType("int8x4") (DLPack lanes).

    Any spelling numpy reads as a type mxffi has is accepted, and so is "bfloat16"; a spelling
    that names no such type is a TypeError (numpy's class). A DataType equals another DataType
    of the same type and its canonical name (str(d), "float32"), and hashes as that name does.
    Like a numpy dtype, it also equals every other spelling of its type ("f4", float,
    numpy.float32, numpy.dtype("<f4")), whose hashes differ, as numpy's do from its names; and
    comparing it with anything else is False, never an error.
    """

    cdef DLDataType cdtype

    def __init__(self, dtype):
        self.cdtype = _as_dtype(dtype, "mxffi.DataType").cdtype

    @property
    def code(self):
        return self.cdtype.code

    @property
    def bits(self):
        return self.cdtype.bits

    @property
    def lanes(self):
        return self.cdtype.lanes

    def __str__(self):
        return _dtype_name(self.cdtype)

    def __repr__(self):
        return f"mxffi.DataType('{_dtype_name(self.cdtype)}')"

    def __eq__(self, other):
        return _dtype_equal(self, other)

    def __ne__(self, other):
        eq = _dtype_equal(self, other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self):
        return hash(_dtype_name(self.cdtype))

    def __reduce__(self):
        return (_dtype.from_fields, (self.cdtype.code, self.cdtype.bits, self.cdtype.lanes))


cdef object _dtype_equal(DataType self, other):
    cdef DLDataType o
    if isinstance(other, DataType):
        o = (<DataType>other).cdtype
        return o.code == self.cdtype.code and o.bits == self.cdtype.bits and \
            o.lanes == self.cdtype.lanes
    if not (isinstance(other, str) or _dtype.is_builtin_dtype(other)
            or _dtype.is_numpy_dtype_like(other)):
        return NotImplemented
    name = _dtype_name(self.cdtype)
    if isinstance(other, str) and other == name:
        return True
    try:
        o = _as_dtype(other, "mxffi.DataType.__eq__").cdtype
    except TypeError:
        return False  # names no type mxffi has ("csr", "U3"): not this one
    if o.code != self.cdtype.code or o.bits != self.cdtype.bits or o.lanes != self.cdtype.lanes:
        return False
    return True  # another spelling of this type ("f4", float, numpy.float32), as numpy


def dtype_from_fields(code, bits, lanes):
    """The DataType (code, bits, lanes), any DLPack data type (an imported tensor's included)."""
    cdef DLDataType t
    _dtype.check_fields(code, bits, lanes)
    t.code = code
    t.bits = bits
    t.lanes = lanes
    return _make_dtype(t)


cdef DataType _make_dtype(DLDataType t):
    cdef DataType d = DataType.__new__(DataType)
    d.cdtype = t
    return d


cdef class Device:
    """A DLPack device: Device("cpu"), Device("cuda", 1), Device("cuda:1")."""

    cdef DLDevice cdevice

    def __init__(self, device_type, device_id=0):
        if isinstance(device_type, Device):
            self.cdevice = (<Device>device_type).cdevice
            return
        code, dev_id = _dtype.parse_device(device_type, device_id)
        self.cdevice.device_type = code
        self.cdevice.device_id = dev_id

    @property
    def device_type(self):
        return self.cdevice.device_type

    @property
    def device_id(self):
        return self.cdevice.device_id

    @property
    def type(self):
        return _dtype.device_name(self.cdevice.device_type)

    def __str__(self):
        return f"{self.type}:{self.cdevice.device_id}"

    def __repr__(self):
        return f"mxffi.Device('{self.type}', {self.cdevice.device_id})"

    def __eq__(self, other):
        if not isinstance(other, Device):
            return NotImplemented
        return (self.cdevice.device_type == (<Device>other).cdevice.device_type
                and self.cdevice.device_id == (<Device>other).cdevice.device_id)

    def __hash__(self):
        return hash((self.cdevice.device_type, self.cdevice.device_id))

    def __reduce__(self):
        return (Device, (self.cdevice.device_type, self.cdevice.device_id))


cdef Device _make_device(DLDevice d):
    cdef Device out = Device.__new__(Device)
    out.cdevice = d
    return out
