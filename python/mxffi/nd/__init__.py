"""mxffi.nd: MXNet-style array namespaces; ``mxffi.nd.sparse`` holds the sparse arrays."""

from . import sparse

__all__ = ["sparse"]
