"""Inputs the sparse tests share: dense matrices of a given density, with an empty row and an
empty column where the shape has room, from which each test builds its sparse operands."""

import numpy as np


def sparse_mask(rng, shape, density):
    """True at about density of the places; row 1 and column 2 all False when there is room
    and density < 1 (so every kernel meets an empty row and an empty column)."""
    mask = rng.random(shape) < density
    if shape[0] > 2 and density < 1.0:
        mask[1] = False
    if shape[1] > 2 and density < 1.0:
        mask[:, 2] = False
    return mask


def random_dense(shape, density, dtype, seed=0):
    """A dense matrix of standard normal values at sparse_mask's places, zeros elsewhere."""
    rng = np.random.default_rng(seed)
    mask = sparse_mask(rng, shape, density)
    return np.where(mask, rng.standard_normal(shape), 0.0).astype(dtype)
