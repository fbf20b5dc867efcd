"""Explicit-state random numbers for kernels: xoshiro256** seeded by splitmix64.

A generator state is a ``uint64[4]`` array passed into every kernel, so a run
is reproducible from (run seed, batch index) whatever thread or machine runs
the batch.  Batch seeds come from ``numpy.random.SeedSequence``.
"""
from __future__ import annotations

import numpy as np
from numba import njit

_U64 = np.uint64


@njit(cache=True, nogil=True)
def _splitmix64(x):
    x = x + _U64(0x9E3779B97F4A7C15)
    z = x
    z = (z ^ (z >> _U64(30))) * _U64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> _U64(27))) * _U64(0x94D049BB133111EB)
    return x, z ^ (z >> _U64(31))


@njit(cache=True, nogil=True)
def seed_state(seed):
    """A fresh xoshiro256** state (uint64[4]) from a 64-bit seed."""
    state = np.empty(4, dtype=np.uint64)
    x = _U64(seed)
    for i in range(4):
        x, z = _splitmix64(x)
        state[i] = z
    return state


@njit(cache=True, nogil=True)
def _rotl(x, k):
    return (x << _U64(k)) | (x >> _U64(64 - k))


@njit(cache=True, nogil=True)
def next_u64(state):
    """Next 64-bit output; advances ``state`` in place."""
    result = _rotl(state[1] * _U64(5), 7) * _U64(9)
    t = state[1] << _U64(17)
    state[2] ^= state[0]
    state[3] ^= state[1]
    state[1] ^= state[2]
    state[0] ^= state[3]
    state[2] ^= t
    state[3] = _rotl(state[3], 45)
    return result


@njit(cache=True, nogil=True)
def rand_float(state):
    """Uniform float in [0, 1) with 53 random bits."""
    return (next_u64(state) >> _U64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True, nogil=True)
def rand_below(state, n):
    """Uniform integer in [0, n) (Lemire's multiply-shift on 32 high bits; n < 2**32)."""
    x = next_u64(state) >> _U64(32)
    return np.int64((x * _U64(n)) >> _U64(32))


@njit(cache=True, nogil=True)
def shuffle_inplace(state, arr):
    """Fisher-Yates shuffle of a 1-D array."""
    for i in range(arr.shape[0] - 1, 0, -1):
        j = rand_below(state, i + 1)
        tmp = arr[i]
        arr[i] = arr[j]
        arr[j] = tmp


@njit(cache=True, nogil=True)
def shuffle_tail(state, arr, k):
    """``arr[n-k:]`` := a uniform random ordered sample of ``k`` of the entries of ``arr``
    (the first ``n-k`` places keep the others, in no particular order): the last ``k``
    steps of :func:`shuffle_inplace`, two draws per 64-bit output (each is the 32-bit
    multiply-shift of :func:`rand_below`), for kernels that draw millions of samples."""
    n = arr.shape[0]
    i = n - 1
    while i >= n - k and i > 0:
        x = next_u64(state)
        j = np.int64(((x >> _U64(32)) * _U64(i + 1)) >> _U64(32))
        tmp = arr[i]
        arr[i] = arr[j]
        arr[j] = tmp
        i -= 1
        if i >= n - k and i > 0:
            j = np.int64(((x & _U64(0xFFFFFFFF)) * _U64(i + 1)) >> _U64(32))
            tmp = arr[i]
            arr[i] = arr[j]
            arr[j] = tmp
            i -= 1


def batch_seed(run_seed: int, batch_index: int) -> int:
    """The 64-bit seed of batch ``batch_index`` of a run.

    Equal to child ``batch_index`` of ``SeedSequence(run_seed).spawn(...)``,
    computed directly so any batch can be run alone (on a thread, a Dask
    worker, or after a resume).
    """
    child = np.random.SeedSequence(int(run_seed), spawn_key=(int(batch_index),))
    return int(child.generate_state(1, dtype=np.uint64)[0])


def state_for_batch(run_seed: int, batch_index: int) -> np.ndarray:
    """Kernel RNG state for one batch of a run."""
    return seed_state(np.uint64(batch_seed(run_seed, batch_index)))
