"""Warm-up of the Survo kernels, one function per kernel group (issue 15).

Each is "module:function" for a background compile process and takes no
argument.  The board itself (setup, swaps, W, chi-square) is plain numpy
and needs no warm-up.

* ``survo-solve``    -> ``sudokustudio.survo.warm:warm_solve``     (Hint, Solve)
* ``survo-generate`` -> ``sudokustudio.survo.warm:warm_generate``  (New puzzle, difficulty)
* ``survo-atlas``    -> ``sudokustudio.survo.warm:warm_atlas``     (the atlas enumeration)
"""


def warm_solve() -> None:
    from sudokustudio.survo.solve import warm_up as solve_warm_up

    solve_warm_up()


def warm_generate() -> None:
    from sudokustudio.survo.generate import warm_up as generate_warm_up

    generate_warm_up()


def warm_atlas() -> None:
    from sudokustudio.survo.atlas import warm_up as atlas_warm_up

    atlas_warm_up()


def warm_up() -> None:
    """Hint, Solve and New puzzle (the atlas has its own: ``warm_atlas``)."""
    warm_solve()
    warm_generate()
