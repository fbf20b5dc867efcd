"""Collections of generated puzzles: store, export, import, clear errors; the generate command."""
import json

import numpy as np
import pytest

from sudokustudio.jobs.collections import (CollectionError, CollectionStore, export_puzzles,
                                           import_collection)
from sudokustudio.sudoku.generate import GeneratorJob


@pytest.fixture(scope="module")
def small_result():
    job = GeneratorJob("top-down", per_batch=12, difficulty=["guesses", "brt"])
    return job.run_batch(0, 5)


def test_export_import_round_trip(tmp_path, small_result):
    for suffix in (".txt", ".sdm", ".csv"):
        path = tmp_path / f"c{suffix}"
        assert export_puzzles(path, small_result, generator="top-down", seed=5) == 12
        coll = import_collection(path, generator="top-down")
        assert np.array_equal(coll.puzzles, small_result.puzzles)
        if suffix == ".csv":
            assert np.array_equal(coll.metrics["guesses"], small_result.metrics["guesses"])
            assert np.allclose(coll.weights, 1.0)
            header = path.read_text().splitlines()[0]
            assert header == "puzzle,clues,generator,seed,weight,guesses,brt"


def test_store_commits_batches_and_reloads(tmp_path, small_result):
    store = CollectionStore(tmp_path / "c.sqlite3")
    cid = store.create("td", "top-down", {"method": "top-down"}, 5)
    store.add_batch(cid, 1, small_result.puzzles[6:], small_result.weights[6:],
                    {k: v[6:] for k, v in small_result.metrics.items()})
    store.add_batch(cid, 0, small_result.puzzles[:6], small_result.weights[:6],
                    {k: v[:6] for k, v in small_result.metrics.items()})
    store.add_batch(cid, 0, small_result.puzzles[:6])  # the same batch again: ignored
    store.close()
    again = CollectionStore(tmp_path / "c.sqlite3")
    coll = again.load(cid)
    assert np.array_equal(coll.puzzles, small_result.puzzles)   # batch order, not arrival order
    assert np.array_equal(coll.metrics["brt"], small_result.metrics["brt"])
    assert again.list()[0]["count"] == 12
    with pytest.raises(CollectionError, match="no collection 99"):
        again.load(99)


def test_rows_metrics_are_the_json_of_their_values():
    """The per-row metrics text (written by template, not json.dumps per row) reads back as the
    same values: floats to the last bit, ints, None for missing and non-finite, booleans, a name
    that needs escaping."""
    import json

    from sudokustudio.jobs.collections import _metrics_json, _plain_values

    cols = {"brt": np.array([0.1, 1e-300, np.nan, 2.0 / 3.0]), "n": np.array([1, 2, 3, 4]),
            'odd "name"': np.array([np.inf, 5.5, -0.0, 7.0]), "flag": np.array([True, False, True, True])}
    names = list(cols)
    values = [_plain_values(cols[k]) for k in names]
    texts = _metrics_json(names, values, 4)
    assert [json.loads(t) for t in texts] == [dict(zip(names, row)) for row in zip(*values)]
    assert json.loads(texts[0])["brt"] == 0.1 and json.loads(texts[2])["brt"] is None
    assert _metrics_json([], [], 3) == ["{}"] * 3


def test_damaged_store_is_reported(tmp_path):
    bad = tmp_path / "bad.sqlite3"
    bad.write_bytes(b"this is not a database" * 100)
    with pytest.raises(CollectionError, match="damaged or not a collection store"):
        CollectionStore(bad)


@pytest.mark.parametrize("name,text,message", [
    ("short.txt", "123\n", "line 1.*wrong length"),
    ("char.txt", "." * 80 + "x\n", r"line 1.*bad character 'x' at r9c9"),
    ("dup.txt", "11" + "." * 79 + "\n", "line 1.*duplicate digit 1 in row 1"),
    ("second.txt", "." * 81 + "\n" + "." * 10 + "\n", "line 2: wrong length"),
    ("empty.txt", "", "no puzzle"),
    ("nohead.csv", "clues,weight\n25,1\n", "no 'puzzle' column"),
    ("weight.csv", "puzzle,weight\n" + "." * 81 + ",heavy\n", "line 2: weight 'heavy' is not a number"),
    ("neg.csv", "puzzle,weight\n" + "." * 81 + ",-1\n", "line 2: weight '-1' must be finite"),
    ("fields.csv", "puzzle,weight\n" + "." * 81 + "\n", "line 2: 1 fields, the header has 2"),
    ("metric.csv", "puzzle,guesses\n" + "." * 81 + ",many\n", "line 2: guesses value 'many' is not a number"),
    ("empty.csv", "", "empty file"),
])
def test_bad_collection_files_give_clear_errors(tmp_path, name, text, message):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(CollectionError, match=message) as info:
        import_collection(path)
    assert name in str(info.value)


def test_missing_file_and_bad_export_suffix(tmp_path, small_result):
    with pytest.raises(CollectionError, match="no such file"):
        import_collection(tmp_path / "nothing.txt")
    with pytest.raises(CollectionError, match="cannot export to '.xls'"):
        export_puzzles(tmp_path / "x.xls", small_result)


def test_import_berthier_controlled_bias_collection(shared_data):
    coll = import_collection(shared_data / "controlled_bias" / "001-puzzles.txt", generator="controlled-bias")
    assert len(coll) == 21695
    clues = np.loadtxt(shared_data / "controlled_bias" / "001-nb-clues.txt", dtype=int)
    assert np.array_equal(coll.clues, clues)


def test_berthier_controlled_bias_puzzles_follow_the_corrected_mean_s_variance(shared_data):
    """Berthier's 21,695 controlled-bias puzzles: their clue counts follow the shares the bias law
    predicts from his real counts (p_cb ∝ p / cf, within 4 Poisson SE each), and the corrected
    mean's SE² x n agrees with the predicted variance a puzzle (3.64) within 20%, where the
    old weighted SE (sd / √n_eff) read 2.2, 39% low."""
    import math

    from sudokustudio.core.stats import Moments
    from sudokustudio.sudoku.correction import CF, corrected_mean_variance
    from sudokustudio.sudoku.estimate.published import PUBLISHED_MINIMALS
    from sudokustudio.sudoku.generate import GenResult, describe_result

    coll = import_collection(shared_data / "controlled_bias" / "001-puzzles.txt", generator="controlled-bias")
    d = describe_result("controlled-bias", GenResult(coll.puzzles, coll.weights))
    var, p_cb = corrected_mean_variance({c: v for c, (v, _) in PUBLISHED_MINIMALS["berthier"].items()})
    n = d["count"]
    for c in range(22, 32):
        expected = n * p_cb[c]
        assert abs(d["clues_hist"].get(c, 0) - expected) < 4 * math.sqrt(expected) + 1, c
    assert d["corrected_mean_se"] ** 2 * n == pytest.approx(var, rel=0.2)
    old = Moments.of(coll.clues, CF[coll.clues])
    assert (old.sd / math.sqrt(old.n_eff)) ** 2 * n < 0.7 * var


def test_generate_command_json(tmp_path, capsys):
    from sudokustudio.cli import main

    out = tmp_path / "p.csv"
    assert main(["generate", "--method", "bottom-up", "-n", "30", "--seed", "4", "--threads", "2",
                 "--out", str(out), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    for key in ("count", "seconds", "clues_hist", "mean", "sd", "skew", "kurt"):
        assert key in d
    assert d["count"] == 30 and sum(d["clues_hist"].values()) == 30
    assert len(out.read_text().splitlines()) == 31
    assert main(["generate", "--method", "bottom-up", "-n", "30", "--seed", "4", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["clues_hist"] == d["clues_hist"]   # same seed, same collection


def test_generate_command_controlled_bias_has_corrected_keys(capsys):
    from sudokustudio.cli import main

    assert main(["generate", "--method", "controlled-bias", "-n", "1", "--seed", "2", "--difficulty", "none",
                 "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["count"] == 1 and "corrected_mean" in d and "corrected_sd" in d


def test_generate_command_bad_input(capsys):
    from sudokustudio.cli import main

    assert main(["generate", "-n", "0"]) == 2
    assert "argument -n: must be a whole number from 1 to" in capsys.readouterr().err
    assert main(["generate", "-n", "5", "--out", "x.xls"]) == 2
    assert "cannot export" in capsys.readouterr().err
