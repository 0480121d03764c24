"""A real consumer of mxffi.np: scikit-learn estimators (LinearDiscriminantAnalysis, PCA, Ridge,
StandardScaler) with array_api_dispatch=True fitted on mxffi arrays (through array-api-compat,
SCIPY_ARRAY_API=1) give numpy's results, and their outputs are mxffi arrays.

Runs in a child interpreter: SCIPY_ARRAY_API must be set before scipy is first imported, and
other tests of this process import it.
"""

import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("sklearn", reason="scikit-learn is not installed (the test extras have it)")
pytest.importorskip("array_api_compat", reason="array-api-compat is not installed")

SCRIPT = textwrap.dedent(
    """
    import os
    os.environ["SCIPY_ARRAY_API"] = "1"
    import numpy as np
    import sklearn
    from sklearn.decomposition import PCA
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    from sklearn.linear_model import Ridge
    from sklearn.preprocessing import StandardScaler

    import mxffi
    import mxffi.np as mnp

    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 6))
    X[:, 1] = 2 * X[:, 0] + 0.1 * X[:, 1]  # correlated columns: PCA has something to find
    y = X @ rng.standard_normal(6) + 0.1 * rng.standard_normal(60)
    labels = (X[:, 2] + 0.3 * rng.standard_normal(60) > 0).astype(np.int64)
    cases = {
        "LDA": (LinearDiscriminantAnalysis, (X, labels), "predict_proba"),
        "PCA": (lambda: PCA(n_components=3, svd_solver="full"), (X,), "transform"),
        "Ridge": (lambda: Ridge(alpha=1.0, solver="svd"), (X, y), "predict"),
        "StandardScaler": (StandardScaler, (X,), "transform"),
    }
    for name, (make, args, method) in cases.items():
        ref = getattr(make().fit(*args), method)(X)
        with sklearn.config_context(array_api_dispatch=True):
            est = make().fit(*[mnp.asarray(a) for a in args])
            got = getattr(est, method)(mnp.asarray(X))
        assert type(got) is mxffi.NDArray, (name, type(got))
        got = got.numpy()
        if name == "PCA":  # components are unique up to sign
            got, ref = np.abs(got), np.abs(ref)
            comps = est.components_
            assert type(comps) is mxffi.NDArray
        np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-9, err_msg=name)
        print(name, "ok")
    """
)


def test_estimators_on_mxffi_arrays_match_numpy():
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.split() == ["LDA", "ok", "PCA", "ok", "Ridge", "ok", "StandardScaler", "ok"]
