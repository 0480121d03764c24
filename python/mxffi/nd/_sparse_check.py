"""The format check of sparse arrays' parts (csr: data, indices, indptr; row_sparse: data,
indices), shared by check_format and unpickling: numpy only, vectorised, messages naming the
position and the values as the C++ constructors' do."""


def _check_parts(fname, stype, shape, data, indices, indptr, full):
    """ValueError naming what is wrong when (data, indices, indptr) do not form a valid stype
    array of shape: lengths and ends always, order and bounds with full (O(nnz))."""
    import numpy

    def fail(msg):
        raise ValueError(f"{fname}: {msg}")

    for name, a in (("indices", indices), ("indptr", indptr)):
        if a is None:
            continue
        if a.ndim != 1:
            fail(f"{name} must be 1-D, got shape {a.shape}")
        if a.dtype not in (numpy.int32, numpy.int64):
            fail(f"{name} must be int32 or int64, got {a.dtype}")
    if stype == "row_sparse":
        if len(shape) < 1:
            fail("a row_sparse array has at least one dimension")
        if data.ndim != len(shape) or data.shape[0] != indices.shape[0]:
            fail(
                f"data must have one row of shape {tuple(shape[1:])} per index; got data of shape "
                f"{data.shape} and {indices.shape[0]} indices"
            )
        for i in range(1, len(shape)):
            if data.shape[i] != shape[i]:
                fail(f"data.shape[{i}]={data.shape[i]} must equal shape[{i}]={shape[i]}")
        if not full or indices.size == 0:
            return
        ix = indices.astype(numpy.int64)
        bad = numpy.flatnonzero((ix < 0) | (ix >= shape[0]))
        if bad.size:
            fail(f"indices[{bad[0]}]={ix[bad[0]]} is out of range for {shape[0]} rows")
        bad = numpy.flatnonzero(ix[1:] <= ix[:-1])
        if bad.size:
            j = bad[0] + 1
            fail(
                f"row_sparse indices must be sorted and unique; indices[{j}]={ix[j]} follows "
                f"indices[{j - 1}]={ix[j - 1]}"
            )
        return
    if len(shape) != 2:
        fail(f"a csr array is 2-D, got shape {tuple(shape)}")
    rows, cols = shape
    if indptr is None:
        fail("a csr array needs indptr")
    if indices.dtype != indptr.dtype:
        fail(f"indices ({indices.dtype}) and indptr ({indptr.dtype}) must have the same dtype")
    if data.ndim != 1 or data.shape[0] != indices.shape[0]:
        fail(
            f"data must be 1-D and as long as indices, got shape {data.shape} and "
            f"{indices.shape[0]} indices"
        )
    nnz = indices.shape[0]
    if indptr.shape[0] != rows + 1:
        fail(f"indptr must have rows + 1 = {rows + 1} entries, got {indptr.shape[0]}")
    ip = indptr.astype(numpy.int64)
    if ip[0] != 0:
        fail(f"indptr[0] must be 0, got {ip[0]}")
    if ip[-1] != nnz:
        fail(f"indptr[-1] must equal the number of values {nnz}, got {ip[-1]}")
    if not full:
        return
    bad = numpy.flatnonzero(ip[1:] < ip[:-1])
    if bad.size:
        r = bad[0]
        fail(f"indptr must be non-decreasing; indptr[{r}]={ip[r]} > indptr[{r + 1}]={ip[r + 1]}")
    if nnz == 0:
        return
    ix = indices.astype(numpy.int64)
    row_of = numpy.repeat(numpy.arange(rows), numpy.diff(ip))
    bad = numpy.flatnonzero((ix < 0) | (ix >= cols))
    if bad.size:
        j = bad[0]
        fail(f"indices[{j}]={ix[j]} is out of range for {cols} columns (row {row_of[j]})")
    bad = numpy.flatnonzero((ix[1:] <= ix[:-1]) & (row_of[1:] == row_of[:-1]))
    if bad.size:
        j = bad[0] + 1
        fail(
            f"the column indices of row {row_of[j]} must be sorted and unique; indices[{j}]="
            f"{ix[j]} follows indices[{j - 1}]={ix[j - 1]}"
        )
