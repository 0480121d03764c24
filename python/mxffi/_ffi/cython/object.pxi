# Objects: the Python side of a refcounted mxffi object, the type-key -> class registry, and
# the value types DataType and Device.

# type index -> Python class, filled by register_object.
cdef dict _CLASS_BY_INDEX = {}


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
        return not self.same_as(other)

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
            raise TypeError(f"register_object: no type key given for {cls.__name__}")
        if not (isinstance(cls, type) and issubclass(cls, Object)):
            raise TypeError(f"register_object: {cls!r} is not a subclass of mxffi.Object")
        index = _type_key_to_index(key)
        _CLASS_BY_INDEX[index] = cls
        cls._type_key = key
        cls._type_index = index
        return cls

    if isinstance(type_key, type):
        cls, type_key = type_key, None
        return register(cls)
    return register


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
    obj = Object.__new__(cls)
    obj.chandle = handle
    return obj


cdef object _wrap_borrowed(MXFFIObject* handle):
    MXFFIObjectIncRef(handle)
    return _make_object(handle)


# ---------------------------------------------------------------------------------------------
# DataType and Device: plain values carried inline in the value cell.

cdef dict _DTYPE_CODES = {"int": 0, "uint": 1, "float": 2, "handle": 3, "bfloat": 4,
                          "complex": 5, "bool": 6}
cdef dict _DTYPE_NAMES = {v: k for k, v in _DTYPE_CODES.items()}
cdef dict _DTYPE_CACHE = {}


cdef class DataType:
    """A DLPack data type: DataType("float32"), DataType("int8x4"), DataType(numpy.float64)."""

    cdef DLDataType cdtype

    def __init__(self, dtype):
        cdef DataType parsed
        if isinstance(dtype, DataType):
            self.cdtype = (<DataType>dtype).cdtype
            return
        key = dtype if isinstance(dtype, str) else _numpy_dtype_name(dtype)
        parsed = _DTYPE_CACHE.get(key)
        if parsed is None:
            parsed = _parse_dtype(key)
            _DTYPE_CACHE[key] = parsed
        self.cdtype = parsed.cdtype

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
        name = _DTYPE_NAMES.get(self.cdtype.code, f"code{self.cdtype.code}")
        if self.cdtype.code == 6 and self.cdtype.bits == 8:
            text = "bool"
        else:
            text = f"{name}{self.cdtype.bits}"
        return text if self.cdtype.lanes == 1 else f"{text}x{self.cdtype.lanes}"

    def __repr__(self):
        return f"mxffi.DataType('{self}')"

    def __eq__(self, other):
        if isinstance(other, str):
            try:
                other = DataType(other)
            except ValueError:
                return False
        if not isinstance(other, DataType):
            return NotImplemented
        return (self.cdtype.code == (<DataType>other).cdtype.code
                and self.cdtype.bits == (<DataType>other).cdtype.bits
                and self.cdtype.lanes == (<DataType>other).cdtype.lanes)

    def __hash__(self):
        return hash((self.cdtype.code, self.cdtype.bits, self.cdtype.lanes))

    def __reduce__(self):
        return (DataType, (str(self),))


cdef DataType _make_dtype(DLDataType t):
    cdef DataType d = DataType.__new__(DataType)
    d.cdtype = t
    return d


def _numpy_dtype_name(dtype):
    try:
        import numpy
    except ImportError:
        raise TypeError(f"mxffi.DataType: expected a str or numpy dtype, got {type(dtype).__name__}")
    try:
        return str(numpy.dtype(dtype))
    except TypeError as e:
        raise TypeError(f"mxffi.DataType: cannot interpret {dtype!r} as a data type: {e}") from None


cdef DataType _parse_dtype(str text):
    cdef DLDataType t
    s = text.strip()
    lanes = 1
    if "x" in s and not s.startswith("complex"):
        s, _, lane_text = s.partition("x")
        if not lane_text.isdigit() or int(lane_text) < 1:
            raise ValueError(f"mxffi.DataType: cannot parse '{text}'; bad lane count '{lane_text}'")
        lanes = int(lane_text)
    if s == "bool":
        code, bits = 6, 8
    else:
        name = s.rstrip("0123456789")
        digits = s[len(name):]
        if name not in _DTYPE_CODES or name == "bool":
            raise ValueError(
                f"mxffi.DataType: cannot parse '{text}'; expected int, uint, float, bfloat, "
                "complex or bool followed by a bit width, e.g. 'float32'")
        code = _DTYPE_CODES[name]
        bits = int(digits) if digits else (64 if name == "handle" else 32)
        if not 0 < bits < 256:
            raise ValueError(f"mxffi.DataType: cannot parse '{text}'; bit width {bits} out of range")
    if lanes > 65535:
        raise ValueError(f"mxffi.DataType: cannot parse '{text}'; {lanes} lanes is more than 65535")
    t.code = code
    t.bits = bits
    t.lanes = lanes
    return _make_dtype(t)


cdef dict _DEVICE_TYPES = {"cpu": 1, "cuda": 2, "cuda_host": 3, "opencl": 4, "vulkan": 7,
                           "metal": 8, "vpi": 9, "rocm": 10, "rocm_host": 11, "ext_dev": 12,
                           "cuda_managed": 13, "oneapi": 14, "webgpu": 15, "hexagon": 16}
cdef dict _DEVICE_NAMES = {v: k for k, v in _DEVICE_TYPES.items()}


cdef class Device:
    """A DLPack device: Device("cpu"), Device("cuda", 1), Device("cuda:1")."""

    cdef DLDevice cdevice

    def __init__(self, device_type, int device_id=0):
        if isinstance(device_type, Device):
            self.cdevice = (<Device>device_type).cdevice
            return
        if isinstance(device_type, str):
            name, sep, id_text = device_type.partition(":")
            if sep:
                if not id_text.isdigit():
                    raise ValueError(f"mxffi.Device: cannot parse '{device_type}'")
                device_id = int(id_text)
            if name not in _DEVICE_TYPES:
                raise ValueError(f"mxffi.Device: unknown device type '{name}'; expected one of "
                                 f"{sorted(_DEVICE_TYPES)}")
            self.cdevice.device_type = _DEVICE_TYPES[name]
        else:
            self.cdevice.device_type = int(device_type)
        if device_id < 0:
            raise ValueError(f"mxffi.Device: device_id must be >= 0, got {device_id}")
        self.cdevice.device_id = device_id

    @property
    def device_type(self):
        return self.cdevice.device_type

    @property
    def device_id(self):
        return self.cdevice.device_id

    @property
    def type(self):
        return _DEVICE_NAMES.get(self.cdevice.device_type, str(self.cdevice.device_type))

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
