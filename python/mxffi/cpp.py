"""mxffi.cpp: build C++ (and CUDA) code into a library from Python, and load it.

    import mxffi.cpp

    mod = mxffi.cpp.load_inline(
        "mymath",
        cpp_sources="int64_t add(int64_t a, int64_t b) { return a + b; }",
        functions=["add"],
    )
    mod.add(1, 2)  # 3

:func:`load_inline` compiles the sources with the system toolchain (``$CXX`` or g++, and
``$NVCC``, ``$CUDA_HOME/bin/nvcc`` or nvcc for CUDA sources) against the installed mxffi headers
and libmxffi, loads the library (:func:`mxffi.library.load`) and returns a module of the functions
it registered. :func:`build` does the same without loading and returns the library's path.

``functions=["add", ...]`` exports plain C++ functions: a typed wrapper registers each as
``<name>.<function>`` (its argument names read from its definition), so the source needs no
``MXFFI_REGISTER_API``. Sources that register functions themselves work as well.

Builds are cached in ``$MXFFI_CACHE_DIR`` (default ``$XDG_CACHE_HOME/mxffi``, else
``~/.cache/mxffi``) under a key hashed from the sources, the flags, the compilers' versions, the
mxffi headers (the C ABI version included) and where libmxffi is; a cached library is loaded
without running any compiler. Several processes building the same library at once compile it
once: the first holds a file lock while the others wait (at most ``lock_timeout`` seconds, then
TimeoutError), and the finished library appears by an atomic rename. Nothing is compiled when
mxffi is imported. See docs/jit.md.
"""

import errno
import fcntl
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import types
from collections.abc import Mapping, Sequence
from typing import Union

from . import library as _library
from ._ffi import get_global_func
from ._ffi import libinfo as _libinfo

__all__ = [
    "CompileError",
    "DEFAULT_CUDA_ARCHITECTURES",
    "build",
    "cache_dir",
    "load_inline",
]

#: The CUDA architectures compiled for when no GPU is present and neither the call nor
#: ``$MXFFI_CUDA_ARCHITECTURES`` names any: sm_80 (A100) and sm_90 (H100), the architectures
#: mxffi's own kernels are built for, plus PTX of the newest, which later GPUs compile at load.
DEFAULT_CUDA_ARCHITECTURES = ("80", "90")

#: How long a build waits for another process building the same library (seconds), unless the
#: call or ``$MXFFI_JIT_LOCK_TIMEOUT`` says otherwise.
DEFAULT_LOCK_TIMEOUT = 900.0

_CALLER = "mxffi.cpp.load_inline"
_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_FUNC_RE = re.compile(r"(?:[A-Za-z_][A-Za-z0-9_]*::)*[A-Za-z_][A-Za-z0-9_]*")


_Path = Union[str, "os.PathLike[str]"]
_Sources = str | Sequence[str]


class CompileError(RuntimeError):
    """A compiler failed. ``command`` is what ran (a list), ``output`` the compiler's
    diagnostics (its stdout and stderr); the message holds both."""

    def __init__(self, message: str, command: list[str], output: str) -> None:
        super().__init__(message)
        self.command = command
        self.output = output


def cache_dir() -> str:
    """The folder builds are cached in: ``$MXFFI_CACHE_DIR``, else ``$XDG_CACHE_HOME/mxffi``,
    else ``~/.cache/mxffi``."""
    env = os.environ.get("MXFFI_CACHE_DIR")
    if env:
        return os.path.abspath(os.path.expanduser(env))
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "mxffi")


# ---------------------------------------------------------------------------------------------
# Arguments


def _str_list(value, what, caller):
    """None, a str or a sequence of str -> a list of str; TypeError naming the argument."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, os.PathLike):
        return [os.fspath(value)]
    try:
        items = list(value)
    except TypeError:
        raise TypeError(
            f"{caller}: {what} must be a str or a sequence of str, got {type(value).__name__}"
        ) from None
    out = []
    for i, item in enumerate(items):
        if isinstance(item, os.PathLike):
            item = os.fspath(item)
        if not isinstance(item, str):
            raise TypeError(
                f"{caller}: {what}[{i}] must be a str, got {type(item).__name__}: {item!r}"
            )
        out.append(item)
    return out


def _functions(functions, caller):
    """``functions`` (None, a list of names, or a dict name -> doc) -> [(cpp name, doc)]."""
    if functions is None:
        return []
    if isinstance(functions, str):
        functions = [functions]
    if isinstance(functions, dict):
        items = list(functions.items())
    else:
        items = [(f, "") for f in _str_list(functions, "functions", caller)]
    out, seen = [], set()
    for fname, doc in items:
        if not isinstance(fname, str) or not _FUNC_RE.fullmatch(fname):
            raise ValueError(
                f"{caller}: functions must name C++ functions (identifiers, optionally qualified "
                f"with namespaces as ns::f), got {fname!r}"
            )
        if not isinstance(doc, str):
            raise TypeError(f"{caller}: the doc of function {fname!r} must be a str, got {doc!r}")
        short = fname.rpartition("::")[2]
        if short in seen:
            raise ValueError(f"{caller}: function {short!r} is listed twice")
        seen.add(short)
        out.append((fname, doc))
    return out


def _cuda_architectures(value, caller):
    """The architectures to compile CUDA sources for, as strings of digits ("90")."""
    if value is None:
        value = os.environ.get("MXFFI_CUDA_ARCHITECTURES") or None
    if value is None:
        found = _present_gpu_architectures()
        return found or list(DEFAULT_CUDA_ARCHITECTURES)
    if isinstance(value, str):
        value = value.replace(";", " ").replace(",", " ").split()
    archs = []
    for arch in value:
        text = str(arch).strip().removeprefix("sm_").removeprefix("compute_").replace(".", "")
        if not text.isdigit():
            raise ValueError(
                f"{caller}: cuda_architectures must be compute capabilities such as '90', "
                f"'sm_90' or '9.0', got {arch!r}"
            )
        archs.append(text)
    if not archs:
        raise ValueError(f"{caller}: cuda_architectures is empty")
    return sorted(set(archs), key=int)


_GPU_ARCHS = None


def _present_gpu_architectures():
    """The compute capabilities of this machine's GPUs (nvidia-smi), [] where there are none."""
    global _GPU_ARCHS
    if _GPU_ARCHS is None:
        archs = []
        smi = shutil.which("nvidia-smi")
        if smi:
            try:
                out = subprocess.run(
                    [smi, "--query-gpu=compute_cap", "--format=csv,noheader"],
                    capture_output=True,
                    text=True,
                    timeout=30,
                )
                if out.returncode == 0:
                    archs = sorted(
                        {c.replace(".", "") for c in re.findall(r"\d+\.\d+", out.stdout)}, key=int
                    )
            except (OSError, subprocess.SubprocessError):
                archs = []
        _GPU_ARCHS = archs
    return list(_GPU_ARCHS)


# ---------------------------------------------------------------------------------------------
# Toolchain


def _find_cxx(caller):
    cxx = os.environ.get("CXX") or "g++"
    path = shutil.which(cxx) if not os.path.isabs(cxx) else cxx
    if not path or not os.path.exists(path):
        raise RuntimeError(
            f"{caller}: no C++ compiler: {cxx!r} was not found (set CXX to a g++-compatible "
            "compiler)"
        )
    return path


def _find_nvcc(caller):
    candidates = []
    if os.environ.get("NVCC"):
        candidates.append(os.environ["NVCC"])
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(var):
            candidates.append(os.path.join(os.environ[var], "bin", "nvcc"))
    candidates += ["nvcc", "/usr/local/cuda/bin/nvcc"]
    for c in candidates:
        path = shutil.which(c) if not os.path.isabs(c) else c
        if path and os.path.exists(path):
            return path
    raise RuntimeError(
        f"{caller}: cuda_sources were given but no CUDA compiler was found (tried $NVCC, "
        "$CUDA_HOME/bin/nvcc, nvcc on PATH and /usr/local/cuda/bin/nvcc)"
    )


def _cuda_lib_dir(nvcc, caller):
    """The folder of libcudart.so: under $CUDA_HOME, the toolkit nvcc belongs to, or
    /usr/local/cuda (nvcc may be a launcher script outside its toolkit)."""
    homes = [os.environ.get(v) for v in ("CUDA_HOME", "CUDA_PATH")]
    homes += [os.path.dirname(os.path.dirname(os.path.realpath(nvcc))), "/usr/local/cuda"]
    for home in filter(None, homes):
        for sub in ("lib64", "lib", os.path.join("targets", "x86_64-linux", "lib")):
            if os.path.exists(os.path.join(home, sub, "libcudart.so")):
                return os.path.join(home, sub)
    raise RuntimeError(
        f"{caller}: libcudart.so was not found (looked under $CUDA_HOME, beside {nvcc} and in "
        "/usr/local/cuda); set CUDA_HOME to the CUDA toolkit"
    )


def _compiler_version(path, caller):
    """The compiler's ``--version`` text, remembered on disk per (real path, size, mtime), so
    that a cache hit runs no compiler at all."""
    real = os.path.realpath(path)
    st = os.stat(real)
    key = hashlib.sha256(f"{real}\0{st.st_size}\0{st.st_mtime_ns}".encode()).hexdigest()[:32]
    memo = os.path.join(cache_dir(), "compilers", key)
    try:
        with open(memo, encoding="utf-8") as f:
            return f.read()
    except OSError:
        pass
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.SubprocessError) as e:
        raise RuntimeError(f"{caller}: cannot run {path} --version: {e}") from None
    if out.returncode != 0:
        raise RuntimeError(
            f"{caller}: {path} --version exited with {out.returncode}:\n{out.stderr.strip()}"
        )
    text = out.stdout
    _write_atomic(memo, text.encode())
    return text


_HEADERS_DIGEST = {}


def _headers_digest(include_dir):
    """A digest of the installed mxffi headers: the C ABI version and every layout they fix."""
    if include_dir not in _HEADERS_DIGEST:
        h = hashlib.sha256()
        root = os.path.join(include_dir, "mxffi")
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames.sort()
            for fn in sorted(filenames):
                p = os.path.join(dirpath, fn)
                h.update(os.path.relpath(p, root).encode() + b"\0")
                with open(p, "rb") as f:
                    h.update(f.read())
                h.update(b"\0")
        _HEADERS_DIGEST[include_dir] = h.hexdigest()
    return _HEADERS_DIGEST[include_dir]


def abi_version(include_dir: str | None = None) -> tuple[int, ...]:
    """The C ABI version (major, minor, patch) of the installed headers (c_api.h)."""
    include_dir = include_dir or _libinfo.include_dir()
    with open(os.path.join(include_dir, "mxffi", "c_api.h"), encoding="utf-8") as f:
        text = f.read()
    return tuple(
        int(re.search(rf"^#define MXFFI_VERSION_{part} (\d+)$", text, re.M).group(1))
        for part in ("MAJOR", "MINOR", "PATCH")
    )


# ---------------------------------------------------------------------------------------------
# Typed wrappers for functions=[...]


def _matching(text, i, open_c, close_c):
    """The index just past the bracket closing the one at text[i]."""
    depth = 0
    for j in range(i, len(text)):
        c = text[j]
        if c == open_c:
            depth += 1
        elif c == close_c:
            depth -= 1
            if depth == 0:
                return j + 1
    return -1


def _strip_comments_and_strings(source):
    """The source with comments and string/char literals blanked (same length), so that
    searching for declarations is not fooled by them."""
    out = list(source)
    i, n = 0, len(source)
    while i < n:
        c = source[i]
        if source.startswith("//", i):
            j = source.find("\n", i)
            j = n if j < 0 else j
        elif source.startswith("/*", i):
            j = source.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif c in "\"'":
            j = i + 1
            while j < n and source[j] != c:
                j += 2 if source[j] == "\\" else 1
            j += 1
            for k in range(i + 1, min(j - 1, n)):
                if out[k] != "\n":
                    out[k] = " "
            i = j
            continue
        else:
            i += 1
            continue
        for k in range(i, j):
            if out[k] != "\n":
                out[k] = " "
        i = j
    return "".join(out)


def _split_top(text, sep):
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c in "<([{":
            depth += 1
        elif c in ">)]}":
            depth -= 1
        elif c == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


_NOT_TYPES = {"return", "else", "case", "new", "delete", "throw", "co_return", "sizeof"}


def parameters_of(source, function):
    """The parameters [(name, default text or None)] of ``function``'s definition (or
    declaration) in a C++ source, or None where it cannot be read (no names, no definition).

    Reads the first ``<type> function(<params>)`` followed by a body or ``;``, skipping calls,
    comments and string literals. Used to name the arguments of exported functions; a function
    whose parameters are unnamed is exported positionally.
    """
    clean = _strip_comments_and_strings(source)
    short = function.rpartition("::")[2]
    for m in re.finditer(rf"(?<![A-Za-z0-9_]){re.escape(short)}\s*\(", clean):
        before = clean[: m.start()].rstrip()
        before = re.sub(r"(?:[A-Za-z_][A-Za-z0-9_]*::)+$", "", before).rstrip()
        if not before or before[-1] not in "*&>" and not re.search(r"[A-Za-z0-9_]$", before):
            continue
        word = re.search(r"[A-Za-z_][A-Za-z0-9_]*$", before)
        if word and word.group(0) in _NOT_TYPES:
            continue
        open_i = m.end() - 1
        close_i = _matching(clean, open_i, "(", ")")
        if close_i < 0:
            continue
        rest = clean[close_i:].lstrip()
        while True:
            stripped = re.sub(r"^(?:noexcept\s*(?:\([^)]*\))?|const\b|override\b)\s*", "", rest)
            if stripped == rest:
                break
            rest = stripped
        if rest.startswith("->"):
            brace = rest.find("{")
            semi = rest.find(";")
            ends = [x for x in (brace, semi) if x >= 0]
            rest = rest[min(ends) :] if ends else ""
        if not rest or rest[0] not in "{;":
            continue
        text = source[open_i + 1 : close_i - 1]
        params = []
        raw = clean[open_i + 1 : close_i - 1]
        if raw.strip() in ("", "void"):
            return []
        offset = 0
        for part in _split_top(raw, ","):
            original = text[offset : offset + len(part)]
            offset += len(part) + 1
            pieces = _split_top(part, "=")
            decl = pieces[0].strip()
            default = None
            if len(pieces) > 1:
                eq = len(pieces[0]) + 1
                default = original[eq:].strip()
            name = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*(?:\[\s*\d*\s*\])?$", decl)
            head = decl[: name.start()].strip() if name else ""
            if not name or not head or head in ("const", "volatile", "unsigned", "signed"):
                return None
            if name.group(1) in ("int", "long", "short", "char", "float", "double", "bool"):
                return None
            params.append((name.group(1), default))
        return params
    return None


# C++ literals a default may be: numbers, true/false, nullptr, a string literal.
_NUMBER = r"[-+]?(?:0[xX][0-9a-fA-F']+|[0-9][0-9']*\.?[0-9']*(?:[eE][-+]?[0-9]+)?"
_NUMBER += r"|\.[0-9]+(?:[eE][-+]?[0-9]+)?)[uUlLfF]*"
_STRING = r'"(?:[^"\\\n]|\\.)*"'
_LITERAL_RE = re.compile(f"{_NUMBER}|true|false|nullptr|{_STRING}")


def _wrappers(module_name, functions, sources, caller):
    """The C++ that registers each exported function as ``<module_name>.<function>``."""
    lines = [
        "",
        "// Registrations of the functions exported by mxffi.cpp (functions=[...]).",
        "#include <mxffi/registry.h>",
        "namespace {",
        "// The function as a plain pointer: a noexcept function's type is another type in C++17.",
        "template <typename R, typename... A>",
        "constexpr R (*MXFFIJitPlain(R (*f)(A...)))(A...) { return f; }",
        "}  // namespace",
    ]
    joined = "\n".join(sources)
    for fname, doc in functions:
        short = fname.rpartition("::")[2]
        params = parameters_of(joined, fname)
        chain = [f'MXFFI_REGISTER_API("{module_name}.{short}")', ".allow_override()"]
        if doc:
            chain.append(f".describe({_cpp_string(doc)})")
        for pname, default in params or []:
            if default is None:
                chain.append(f'.arg("{pname}")')
            elif _LITERAL_RE.fullmatch(default):
                chain.append(f'.arg("{pname}", {default})')
            else:
                raise ValueError(
                    f"{caller}: the default of argument '{pname}' of {fname} ({default}) is not "
                    "a literal (a number, true, false, nullptr or a string); give the function "
                    "a literal default, or register it with MXFFI_REGISTER_API and .arg(name, "
                    "default)"
                )
        chain.append(f".set_body_typed(MXFFIJitPlain({fname}));")
        lines.append("\n    ".join(chain))
    return "\n".join(lines) + "\n"


def _cpp_string(text):
    return '"' + text.encode("unicode_escape").decode("ascii").replace('"', '\\"') + '"'


# ---------------------------------------------------------------------------------------------
# Files and the lock


def _write_atomic(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


class _FileLock:
    """An exclusive flock on a file, waited for at most ``timeout`` seconds. The kernel drops it
    when its holder exits, so a crashed build never leaves the lock held."""

    def __init__(self, path, timeout, caller, what):
        self.path, self.timeout, self.caller, self.what = path, timeout, caller, what
        self.fd = None

    def __enter__(self):
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        deadline = time.monotonic() + self.timeout
        delay = 0.01
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as e:
                if e.errno not in (errno.EAGAIN, errno.EACCES):
                    os.close(fd)
                    raise
            if time.monotonic() >= deadline:
                os.close(fd)
                raise TimeoutError(
                    f"{self.caller}: waited {self.timeout:g} s for another process building "
                    f"{self.what} (lock {self.path}); it still holds the lock. Wait for it, or "
                    "raise lock_timeout (or $MXFFI_JIT_LOCK_TIMEOUT)"
                )
            time.sleep(delay)
            delay = min(delay * 2, 0.25)
        self.fd = fd
        return self

    def __exit__(self, *exc):
        fcntl.flock(self.fd, fcntl.LOCK_UN)
        os.close(self.fd)
        self.fd = None


def _run(cmd, cwd, verbose, caller, name, log):
    if verbose:
        print(f"{caller}: {shlex.join(cmd)}", file=sys.stderr, flush=True)
    proc = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    log.append(f"$ {shlex.join(cmd)}\n{proc.stdout}")
    if verbose and proc.stdout:
        print(proc.stdout, file=sys.stderr, end="", flush=True)
    if proc.returncode != 0:
        tool = os.path.basename(cmd[0])
        raise CompileError(
            f"{caller}: building '{name}' failed: {tool} exited with {proc.returncode}\n"
            f"command: {shlex.join(cmd)}\n{proc.stdout.rstrip()}",
            cmd,
            proc.stdout,
        )


# ---------------------------------------------------------------------------------------------
# build / load_inline


def build(
    name: str,
    cpp_sources: _Sources,
    cuda_sources: _Sources | None = None,
    functions: Sequence[str] | Mapping[str, str] | None = None,
    extra_cflags: Sequence[str] | None = None,
    extra_cuda_cflags: Sequence[str] | None = None,
    extra_ldflags: Sequence[str] | None = None,
    extra_include_paths: Sequence[_Path] | None = None,
    build_directory: _Path | None = None,
    verbose: bool = False,
    cuda_architectures: str | Sequence[str | int] | None = None,
    lock_timeout: float | None = None,
) -> str:
    """Compile sources into a shared library for :func:`mxffi.library.load`; returns its path.

    ``cpp_sources`` and ``cuda_sources`` are source texts (a str or a list of str, joined with
    newlines): the C++ goes into one file compiled by ``$CXX`` (g++), after
    ``#include <mxffi/mxffi.h>`` (g++'s ``-include``); the CUDA into one ``.cu`` file compiled
    by nvcc for ``cuda_architectures`` (default: the GPUs present, else
    :data:`DEFAULT_CUDA_ARCHITECTURES`; ``$MXFFI_CUDA_ARCHITECTURES`` overrides the default).
    Functions defined in the CUDA source are called from the C++ one through declarations there.

    ``functions`` lists C++ functions (or maps them to doc strings) to export as
    ``<name>.<function>``, with typed arguments named as in their definitions. Flags, include
    folders and linker flags are added with ``extra_cflags``, ``extra_cuda_cflags``,
    ``extra_include_paths`` and ``extra_ldflags``.

    The library is built once per distinct input in ``build_directory`` (default
    :func:`cache_dir`), in a folder named ``<name>-<hash>``; ``verbose`` prints the commands and
    the compiler's output. Raises :class:`CompileError` with the compiler's diagnostics when a
    compiler fails, TimeoutError when another process holds the build's lock for longer than
    ``lock_timeout`` seconds (default ``$MXFFI_JIT_LOCK_TIMEOUT``, else 900), TypeError and
    ValueError for bad arguments.
    """
    caller = "mxffi.cpp.build"
    return _build(caller, **_locals_of_build(locals()))[0]


def _locals_of_build(values):
    return {k: v for k, v in values.items() if k != "caller"}


def _build(
    caller,
    name,
    cpp_sources,
    cuda_sources=None,
    functions=None,
    extra_cflags=None,
    extra_cuda_cflags=None,
    extra_ldflags=None,
    extra_include_paths=None,
    build_directory=None,
    verbose=False,
    cuda_architectures=None,
    lock_timeout=None,
):
    if not isinstance(name, str) or not _NAME_RE.fullmatch(name):
        raise ValueError(
            f"{caller}: name must be an identifier (letters, digits, '_'; it names the library "
            f"and the area of its functions), got {name!r}"
        )
    cpp = _str_list(cpp_sources, "cpp_sources", caller)
    cuda = _str_list(cuda_sources, "cuda_sources", caller)
    funcs = _functions(functions, caller)
    cflags = _str_list(extra_cflags, "extra_cflags", caller)
    cuda_flags = _str_list(extra_cuda_cflags, "extra_cuda_cflags", caller)
    ldflags = _str_list(extra_ldflags, "extra_ldflags", caller)
    includes = _str_list(extra_include_paths, "extra_include_paths", caller)
    includes = [os.path.abspath(p) for p in includes]
    if not isinstance(verbose, bool):
        raise TypeError(f"{caller}: verbose must be True or False, got {verbose!r}")
    if lock_timeout is None:
        env = os.environ.get("MXFFI_JIT_LOCK_TIMEOUT")
        try:
            lock_timeout = float(env) if env else DEFAULT_LOCK_TIMEOUT
        except ValueError:
            raise ValueError(
                f"{caller}: $MXFFI_JIT_LOCK_TIMEOUT must be a number of seconds, got {env!r}"
            ) from None
    if isinstance(lock_timeout, bool) or not isinstance(lock_timeout, (int, float)):
        raise TypeError(f"{caller}: lock_timeout must be a number of seconds, got {lock_timeout!r}")
    if build_directory is not None:
        if not isinstance(build_directory, (str, os.PathLike)):
            raise TypeError(
                f"{caller}: build_directory must be a str or os.PathLike, got "
                f"{type(build_directory).__name__}"
            )
        root = os.path.abspath(os.fspath(build_directory))
    else:
        root = cache_dir()

    include_dir, lib_dir = _libinfo.include_dir(), _libinfo.lib_dir()
    cxx = _find_cxx(caller)
    key = hashlib.sha256()

    def feed(label, value):
        key.update(label.encode() + b"\0" + repr(value).encode() + b"\0")

    feed("name", name)
    feed("cpp", cpp)
    feed("cuda", cuda)
    feed("functions", funcs)
    feed("cflags", cflags)
    feed("ldflags", ldflags)
    feed("includes", includes)
    feed("cxx", (os.path.realpath(cxx), _compiler_version(cxx, caller)))
    feed("mxffi", (abi_version(include_dir), _headers_digest(include_dir), lib_dir))
    nvcc = archs = None
    if cuda:
        nvcc = _find_nvcc(caller)
        archs = _cuda_architectures(cuda_architectures, caller)
        feed("nvcc", (os.path.realpath(nvcc), _compiler_version(nvcc, caller)))
        feed("cuda_flags", cuda_flags)
        feed("archs", archs)
    digest = key.hexdigest()[:20]
    folder = os.path.join(root, f"{name}-{digest}")
    target = os.path.join(folder, f"lib{name}.so")
    if os.path.exists(target):
        if verbose:
            print(f"{caller}: {name}: cached {target}", file=sys.stderr, flush=True)
        return target, funcs
    what = f"'{name}' ({folder})"
    with _FileLock(folder + ".lock", float(lock_timeout), caller, what):
        if os.path.exists(target):  # another process built it while this one waited
            return target, funcs
        os.makedirs(folder, exist_ok=True)
        work = tempfile.mkdtemp(dir=folder, prefix=".build-")
        log = []
        try:
            # The sources from line 1, so diagnostics point at their own lines; mxffi.h comes
            # first through -include.
            source = "\n".join(cpp) + "\n"
            if funcs:
                source += _wrappers(name, funcs, cpp, caller)
            with open(os.path.join(work, "main.cpp"), "w", encoding="utf-8") as f:
                f.write(source)
            inc = [f"-I{include_dir}"] + [f"-I{p}" for p in includes]
            objects = []
            libs = []
            if cuda:
                with open(os.path.join(work, "cuda.cu"), "w", encoding="utf-8") as f:
                    f.write("\n".join(cuda) + "\n")
                gencode = []
                for a in archs:
                    gencode.append(f"-gencode=arch=compute_{a},code=sm_{a}")
                gencode.append(f"-gencode=arch=compute_{archs[-1]},code=compute_{archs[-1]}")
                cmd = [nvcc, "-c", "cuda.cu", "-o", "cuda.o", "-std=c++17", "-O3"]
                cmd += ["-Xcompiler", "-fPIC", "-Xcompiler", "-fvisibility=hidden", *gencode]
                cmd += [*inc, *cuda_flags]
                _run(cmd, work, verbose, caller, name, log)
                objects.append("cuda.o")
                cuda_lib = _cuda_lib_dir(nvcc, caller)
                libs += [f"-L{cuda_lib}", "-lcudart", f"-Wl,-rpath,{cuda_lib}"]
            cmd = [cxx, "-shared", "-fPIC", "-std=c++17", "-O2", *inc, *cflags]
            # Debug info (-g in extra_cflags) names main.cpp where it is kept, in the module's
            # folder, not in this build folder, which is removed: backtraces then name a file
            # that exists.
            cmd += [f"-fdebug-prefix-map={work}={folder}"]
            cmd += ["-include", "mxffi/mxffi.h", "main.cpp"]
            cmd += [*objects, "-o", f"lib{name}.so", f"-L{lib_dir}", "-lmxffi"]
            cmd += [f"-Wl,-rpath,{lib_dir}", "-Wl,--no-undefined", *libs, *ldflags]
            _run(cmd, work, verbose, caller, name, log)
            with open(os.path.join(folder, "build.log"), "w", encoding="utf-8") as f:
                f.write("\n".join(log))
            for fn in ("main.cpp", "cuda.cu"):
                if os.path.exists(os.path.join(work, fn)):
                    os.replace(os.path.join(work, fn), os.path.join(folder, fn))
            # Last, and atomic: a library at `target` is always complete.
            os.replace(os.path.join(work, f"lib{name}.so"), target)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return target, funcs


_MODULES = {}


# The function names each load_inline module exported, by module name (an edited build of the
# module may replace them, nothing else).
_EXPORTED: dict[str, set[str]] = {}


def _list_names() -> list[str]:
    from ._ffi import list_global_func_names

    return list(list_global_func_names())


def load_inline(
    name: str,
    cpp_sources: _Sources,
    cuda_sources: _Sources | None = None,
    functions: Sequence[str] | Mapping[str, str] | None = None,
    extra_cflags: Sequence[str] | None = None,
    extra_cuda_cflags: Sequence[str] | None = None,
    extra_ldflags: Sequence[str] | None = None,
    extra_include_paths: Sequence[_Path] | None = None,
    build_directory: _Path | None = None,
    verbose: bool = False,
    cuda_architectures: str | Sequence[str | int] | None = None,
    lock_timeout: float | None = None,
) -> types.ModuleType:
    """Build the sources as :func:`build` does, load the library, and return a module of the
    functions it registered.

    The module's attributes are the library's global functions: ``<name>.<f>`` as ``f`` (the
    exported ``functions`` among them), any other name by its last part; each has its
    signature for ``help()`` and ``inspect.signature``. The module's ``__file__`` is the
    library's path and ``library`` the loaded :class:`mxffi.library.Library`. Loading the same
    build again in a process returns the same module.
    """
    caller = _CALLER
    path, funcs = _build(caller, **_locals_of_build(locals()))
    real = os.path.realpath(path)
    if real in _MODULES:
        return _MODULES[real]
    # The exported functions replace those of an earlier build of the same name (their
    # registrations allow it), but never a function mxffi or another library registered.
    wanted = {name + "." + f.rpartition("::")[2] for f, _ in funcs}
    ours = _EXPORTED.get(name, set())
    taken = sorted(n for n in wanted & set(_list_names()) if n not in ours)
    if taken:
        raise ValueError(
            f"{caller}: {', '.join(taken)} already registered by mxffi or another library; "
            f"give the module another name than '{name}'"
        )
    lib = _library.load(path, override=bool(wanted & ours))
    _EXPORTED[name] = ours | wanted
    module = types.ModuleType(name, f"Functions built by mxffi.cpp from the sources of '{name}'.")
    module.__file__ = path
    module.library = lib
    from .registry import _decorate

    prefix = name + "."
    # The library's new globals, and the exported functions, which replace those of an earlier
    # build of the same name (so that the library does not list them as new).
    names = [str(n) for n in lib.names]
    names += [
        prefix + f.rpartition("::")[2]
        for f, _ in funcs
        if prefix + f.rpartition("::")[2] not in names
    ]
    exported = []
    for full in names:
        short = full[len(prefix) :] if full.startswith(prefix) else full.rpartition(".")[2]
        if not short.isidentifier() or hasattr(module, short):
            continue
        setattr(module, short, _decorate(get_global_func(full), full, name))
        exported.append(short)
    missing = [f for f, _ in funcs if f.rpartition("::")[2] not in exported]
    if missing:
        raise RuntimeError(f"{caller}: {path} registered no function for {missing}")
    module.__all__ = exported
    _MODULES[real] = module
    return module
