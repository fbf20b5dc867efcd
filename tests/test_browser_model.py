"""The collection browser's Qt-free model: columns, selection, classes, paste, paths, export."""
import numpy as np
import pytest

from sudokustudio.jobs.collections import CollectionError, CollectionStore, import_collection
from sudokustudio.core.rng import seed_state
from sudokustudio.models.browser import BrowserFilter, BrowserModel
from sudokustudio.sudoku.canon import minlex_many
from sudokustudio.sudoku.grid import format_puzzle, random_isomorph
from sudokustudio.sudoku.rating import w_rating
from sudokustudio.sudoku.solver import solve
from tests.conftest import load_puzzles


@pytest.fixture
def seventeen(shared_data):
    return load_puzzles(shared_data / "puzzles2_17_clue", limit=60)


@pytest.fixture
def store(tmp_path):
    s = CollectionStore(tmp_path / "c.sqlite3")
    yield s
    s.close()


def _add(store, name, puzzles, metrics=None, batches=1):
    cid = store.create(name, "test")
    parts = np.array_split(np.arange(len(puzzles)), batches)
    for b, rows in enumerate(parts):
        store.add_batch(cid, b, puzzles[rows], None, {k: np.asarray(v)[rows] for k, v in (metrics or {}).items()})
    return cid


def test_open_joins_collections_and_their_metrics(store, seventeen, shared_data):
    magic = load_puzzles(shared_data / "puzzles3_magictour_top1465", limit=20)
    a = _add(store, "a", seventeen, {"guesses": np.arange(60)}, batches=3)
    b = _add(store, "b", magic, {"W": np.arange(20) % 7, "guesses": np.arange(20) + 100})
    table = BrowserModel(store).open([a, b])
    assert len(table) == 80
    assert list(table.metrics) == ["W", "guesses"]
    assert np.array_equal(table.clues, np.r_[np.count_nonzero(seventeen, axis=1), np.count_nonzero(magic, axis=1)])
    assert np.all(np.isnan(table.metrics["W"][:60])) and np.array_equal(table.metrics["W"][60:], np.arange(20) % 7)
    assert np.array_equal(table.metrics["guesses"], np.r_[np.arange(60), np.arange(20) + 100])
    # rows point at their puzzles
    texts = store.puzzle_texts(table.rowid)
    assert [texts[int(r)] for r in table.rowid] == [format_puzzle(p) for p in np.r_[seventeen, magic]]


def test_columns_are_stored_and_rebuilt_when_the_collection_grows(store, seventeen):
    cid = _add(store, "a", seventeen[:30], {"guesses": np.ones(30)})
    BrowserModel(store).open([cid])
    assert set(store.stored_columns(cid)) == {"rowid", "clues", "weight", "m:guesses"}
    store.add_batch(cid, 7, seventeen[30:], None, {"guesses": np.full(30, 2.0)})
    assert store.stored_columns(cid) == {}          # stale: 30 rows stored, 60 now
    table = BrowserModel(store).open([cid])
    assert len(table) == 60 and table.metrics["guesses"].sum() == 30 + 60


def test_a_damaged_column_is_a_clear_error(store, seventeen):
    cid = _add(store, "a", seventeen[:5])
    BrowserModel(store).open([cid])
    with store._db() as db:
        db.execute("UPDATE columns SET data = ? WHERE name = 'clues'", (b"\x00\x01",))
    with pytest.raises(CollectionError, match=f"collection {cid}: stored column 'clues' is damaged"):
        BrowserModel(store).open([cid])


@pytest.mark.parametrize("damage", ["1" * 80, "x" * 81, "é" * 81])
def test_a_damaged_puzzle_row_is_a_clear_error(store, seventeen, damage):
    cid = _add(store, "a", seventeen[:5])
    assert np.array_equal(store.puzzle_array(cid), seventeen[:5])
    with store._db() as db:
        db.execute("UPDATE puzzles SET puzzle = ? WHERE rowid = (SELECT rowid FROM puzzles WHERE position = 3)",
                   (damage,))
    with pytest.raises(CollectionError, match=f"collection {cid}, puzzle 4 is damaged"):
        store.puzzle_array(cid)


def test_select_filters_and_sorts_like_numpy(store, seventeen, shared_data):
    magic = load_puzzles(shared_data / "puzzles3_magictour_top1465", limit=40)
    w = np.r_[np.arange(20) % 5, np.full(20, np.nan)]
    a = _add(store, "a", seventeen)
    b = _add(store, "b", magic, {"W": w})
    table = BrowserModel(store).open([a, b])
    rows = table.select(BrowserFilter(clues=(20, 23)))
    assert np.array_equal(rows, np.flatnonzero((table.clues >= 20) & (table.clues <= 23)))
    rows = table.select(BrowserFilter(ranges={"W": (1, 3)}))
    assert np.array_equal(rows, 60 + np.flatnonzero((w >= 1) & (w <= 3)))
    rows = table.select(BrowserFilter(collections=frozenset({b})), sort="W", descending=True)
    assert rows.size == 40
    vals = table.metrics["W"][rows]
    assert np.all(np.diff(vals[:20]) <= 0) and np.all(np.isnan(vals[20:]))   # NaN last
    # stable: equal keys keep table order
    for v in range(5):
        same = rows[vals == v]
        assert np.all(np.diff(same) > 0)
    with pytest.raises(ValueError, match="no metric 'BRT'"):
        table.select(BrowserFilter(ranges={"BRT": (0, 1)}))


def test_classes_flag_every_isomorph_and_keep_one_per_class(store, seventeen):
    originals = seventeen[:25]
    pick = np.random.default_rng(7).integers(0, 25, size=40)
    rng = seed_state(np.uint64(7))
    isomorphs = np.array([random_isomorph(originals[i], rng) for i in pick])
    a = _add(store, "a", originals)
    b = _add(store, "b", isomorphs, batches=2)
    model = BrowserModel(store)
    table = model.open([a, b])
    assert table.classes_known == 0 and not table.duplicate.any()
    assert model.compute_classes(table, threads=1) == 65
    assert table.class_count() == 25                     # 17-clue puzzles of the file are pairwise non-isomorphic
    assert np.array_equal(table.class_no[:25], np.arange(1, 26))
    assert np.array_equal(table.class_no[25:], pick + 1)
    assert not table.duplicate[:25].any() and table.duplicate[25:].all()
    kept = table.select(BrowserFilter(duplicates="hide"))
    assert np.array_equal(kept, np.arange(25))
    # stored: opening again needs no computing, and agrees with the minlex forms themselves
    again = model.open([b, a])
    assert again.classes_known == 65 and model.compute_classes(again, threads=1) == 0
    forms, _ = minlex_many(np.r_[isomorphs, originals])
    same_form = (forms[:, None, :] == forms[None, :, :]).all(axis=2)
    same_class = again.class_no[:, None] == again.class_no[None, :]
    assert np.array_equal(same_form, same_class)


def test_compute_classes_stops_when_cancelled(store, seventeen):
    cid = _add(store, "a", seventeen)
    model = BrowserModel(store)
    table = model.open([cid])
    assert model.compute_classes(table, cancelled=lambda: True) == 0
    assert table.classes_known == 0 and "canon" not in store.stored_columns(cid)


def test_puzzle_texts_follow_the_selection(store, seventeen):
    cid = _add(store, "a", seventeen)
    model = BrowserModel(store)
    table = model.open([cid])
    order = table.select(sort="clues", descending=True)
    want = [format_puzzle(p) for p in seventeen[order]]
    assert [model.texts.text(table, order, r) for r in range(len(order))] == want
    other = order[::-1].copy()
    assert model.texts.text(table, other, 0) == want[-1]


def test_paste_stores_puzzles_and_names_bad_lines(store, seventeen):
    model = BrowserModel(store)
    text = "\n".join([format_puzzle(seventeen[0]), "12345", format_puzzle(seventeen[1])])
    cid, n, problems = model.add_puzzles(text)
    assert n == 2 and len(problems) == 1 and problems[0].startswith("line 2:")
    table = model.open([cid])
    assert set(table.metrics) == {"W", "guesses", "brt"}
    assert np.array_equal(table.metrics["W"], [w_rating(seventeen[0]), w_rating(seventeen[1])])
    assert np.array_equal(table.metrics["brt"] == 1, table.metrics["W"] == 0)
    with pytest.raises(CollectionError, match="no puzzle"):
        model.add_puzzles("hello\nworld")


def test_path_frames_are_sound_eliminations(shared_data):
    puzzle = load_puzzles(shared_data / "puzzles3_magictour_top1465", limit=1)[0]
    path, frames = BrowserModel.path_frames(puzzle)
    solution = solve(puzzle)
    assert 1 <= path.rating <= 12 and len(frames) == len(path.steps) + 1
    for frame in frames[:-1]:
        cell, d = divmod(frame.step.target, 9)
        assert frame.cand[cell] >> d & 1              # the target is still a candidate
        assert solution[cell] != d + 1                # and is not the solution's digit
        for x in frame.step.llcs + frame.step.rlcs:   # the whip uses live candidates
            assert frame.cand[x // 9] >> (x % 9) & 1
        decided = frame.value > 0
        assert np.array_equal(frame.value[decided], solution[decided])
    assert frames[-1].solved and np.array_equal(frames[-1].value, solution)
    with pytest.raises(ValueError, match="no solution or several"):
        BrowserModel.path_frames(np.zeros(81, dtype=np.uint8))


def test_export_selection_round_trips(store, seventeen, tmp_path):
    cid = _add(store, "a", seventeen, {"guesses": np.arange(60)})
    model = BrowserModel(store)
    table = model.open([cid])
    rows = table.select(BrowserFilter(clues=(17, 17)), sort="guesses", descending=True)[:10]
    assert model.export(table, rows, tmp_path / "sel.csv") == 10
    back = import_collection(tmp_path / "sel.csv")
    assert np.array_equal(back.puzzles, seventeen[rows])
    assert np.array_equal(back.metrics["guesses"], np.arange(60)[rows])


def test_columns_joined_from_the_batches_equal_those_read_from_the_rows(store, seventeen):
    w = np.r_[np.arange(20) % 5, np.full(40, np.nan)]
    cid = store.create("a", "test")
    store.add_batch(cid, 2, seventeen[40:], None, {"guesses": np.arange(20)})   # out of order, no W
    store.add_batch(cid, 0, seventeen[:20], None, {"W": w[:20], "guesses": np.arange(20)})
    store.add_batch(cid, 1, seventeen[20:40], np.full(20, 0.5), {"W": w[20:40], "guesses": np.arange(20)})
    joined = store.columns(cid)
    read = store.build_columns(cid)
    assert set(joined) == set(read) == {"rowid", "clues", "weight", "m:W", "m:guesses"}
    for name in read:
        assert joined[name].dtype == read[name].dtype
        assert np.array_equal(joined[name], read[name], equal_nan=True), name
