"""The sparse optimizer steps of mxffi.nd.sparse: each runs its "sparse.<name>" global in place
and returns the weight (the same object), as MXNet's sparse optimizers update it."""

from .._ffi import get_global_func


def sgd_update(weight, grad, *args, **kwargs):
    """One SGD step in place on weight, which is returned (the same object); see
    ``help(mxffi.get_global_func("sparse.sgd_update"))`` for the parameters."""
    get_global_func("sparse.sgd_update")(weight, grad, *args, **kwargs)
    return weight


def adam_update(weight, grad, mean, var, *args, **kwargs):
    """One Adam step in place on weight (returned, the same object), mean and var; see
    ``help(mxffi.get_global_func("sparse.adam_update"))`` for the parameters."""
    get_global_func("sparse.adam_update")(weight, grad, mean, var, *args, **kwargs)
    return weight


def sgd_mom_update(weight, grad, mom, *args, **kwargs):
    """One SGD step with momentum in place on weight (returned, the same object) and mom; see
    ``help(mxffi.get_global_func("sparse.sgd_mom_update"))`` for the parameters."""
    get_global_func("sparse.sgd_mom_update")(weight, grad, mom, *args, **kwargs)
    return weight


def ftrl_update(weight, grad, z, n, *args, **kwargs):
    """One FTRL-proximal step in place on weight (returned, the same object), z and n; see
    ``help(mxffi.get_global_func("sparse.ftrl_update"))`` for the parameters."""
    get_global_func("sparse.ftrl_update")(weight, grad, z, n, *args, **kwargs)
    return weight


def adagrad_update(weight, grad, history, *args, **kwargs):
    """One AdaGrad step in place on weight (returned, the same object) and history; see
    ``help(mxffi.get_global_func("sparse.adagrad_update"))`` for the parameters."""
    get_global_func("sparse.adagrad_update")(weight, grad, history, *args, **kwargs)
    return weight
