import json

from sudokustudio.cli import main

PUZZLE = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"


def test_solve_json_counts_and_skips_bad_lines(tmp_path, capsys):
    f = tmp_path / "p.txt"
    contradictory = "55" + PUZZLE[2:]
    f.write_text("\n".join([PUZZLE, "." * 81, "1234", PUZZLE[:40] + "." * 41, "12345678." + "........9" + "." * 63])
                 + "\n")
    assert main(["solve", str(f), "--json"]) == 0
    out = capsys.readouterr()
    data = json.loads(out.out)
    assert data["puzzles"] == 4 and data["unique"] == 1 and data["multiple"] == 2 and data["none"] == 1
    assert set(data) >= {"puzzles", "unique", "multiple", "none", "seconds", "solve_seconds"}
    assert data["solve_seconds"] >= 0
    assert "line 3: wrong length" in out.err
    f.write_text(contradictory + "\n")
    assert main(["solve", str(f)]) == 0
    assert "line 1: none (duplicate digit 5 in row 1)" in capsys.readouterr().out


def test_solve_text_output(tmp_path, capsys):
    f = tmp_path / "p.txt"
    f.write_text(PUZZLE + "\n")
    assert main(["solve", str(f), "--threads", "1"]) == 0
    out = capsys.readouterr().out
    assert "line 1: unique 534678912672195348198342567859761423426853791713924856961537284287419635345286179" in out
    assert "1 puzzles: 1 unique" in out


def test_missing_file_is_a_clear_error(tmp_path, capsys):
    assert main(["solve", str(tmp_path / "nope.txt")]) == 2
    assert "nope.txt: cannot read file" in capsys.readouterr().err
