"""Large JSON written a whole matrix at a time (values.text_arrays, ratio_arrays,
decimal_arrays.text_array_from_enclosure; derivation.grid_arrays, softmax_arrays).

The batch decimals are checked against Python's decimal module on values at a
rounding boundary and just off it; the batch JSON against ``json.dumps``; and
whole ``derive --format json`` documents against the same command writing every
step entry by entry (the path small steps take), byte for byte.
"""

from __future__ import annotations

import json
import os
import random
import stat
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
from flint import fmpq, fmpq_mat

from cli_support import run
from symattn.derivation import grid_arrays
from symattn.derivation.grids import RationalGrid
from symattn.render import files, view
from symattn.values.decimal_arrays import text_array_from_enclosure, texts_from_enclosure
from symattn.values.enclosures import Enclosure
from symattn.values.number_format import NumberFormat
from symattn.values.digit_texts import fixed_texts
from symattn.values.text_arrays import TextArray, choose, constant, from_rows, stack

RULES = {"half-up": ROUND_HALF_UP, "half-even": ROUND_HALF_EVEN}


def _expected(value: Fraction, digits: int | None, places: int | None, rule: str) -> str:
    """The decimal text by Python's decimal module at 80 digits (no minus on a zero)."""
    with localcontext() as context:
        context.prec = 80
        exact = Decimal(value.numerator) / Decimal(value.denominator)
        if places is not None:
            rounded = exact.quantize(Decimal(1).scaleb(-places), rounding=RULES[rule])
        elif value == 0:
            return "0"
        else:
            exponent = exact.adjusted()
            quantum = Decimal(1).scaleb(exponent - digits + 1)    # type: ignore[operator]
            rounded = exact.quantize(quantum, rounding=RULES[rule])
            if rounded.copy_abs() >= Decimal(10) ** (exponent + 1):   # 9.9999995 -> 10.0000
                rounded = rounded.quantize(quantum.scaleb(1))
    text = f"{rounded:f}"
    if digits is not None and len(text.lstrip("-")) > digits + 7:     # 1.00000e-09
        sign, figures, exponent = rounded.as_tuple()
        shown = "".join(map(str, figures))[:digits].ljust(digits, "0")
        power = rounded.adjusted()
        return f"{'-' if sign else ''}{shown[0]}.{shown[1:]}e{power:+03d}"
    return text[1:] if text.startswith("-") and Decimal(text) == 0 else text


def _boundary_values() -> list[Fraction]:
    """x.xxxxx5 exactly (a tie at 6 significant digits and at 5 places), 1e-30 on
    either side, both signs, values that round to zero from below, and zero."""
    tiny = Fraction(1, 10 ** 30)
    values: list[Fraction] = [Fraction(0)]
    for tie in (Fraction(1234565, 10 ** 6), Fraction(9999995, 10 ** 6), Fraction(5, 10 ** 6),
                Fraction(-4735, 10 ** 5) / 2, Fraction(123455, 10 ** 5)):
        for offset in (0, tiny, -tiny):
            values += [tie + offset, -(tie + offset)]
    values += [Fraction(-4, 10 ** 4), Fraction(-1, 10 ** 9), -tiny]
    return values


@pytest.mark.parametrize("rule", ["half-up", "half-even"])
@pytest.mark.parametrize("digits, places", [(6, None), (None, 5), (None, 3)])
def test_batch_decimals_at_and_beside_a_rounding_boundary(rule, digits, places):
    values = _boundary_values()
    fmt = NumberFormat(digits=digits or 6, places=places, rounding=rule)
    expected = [_expected(v, digits, places, rule) for v in values]
    # 1e-30 offsets need 100-bit numerators: the enclosure decides, the rest is exact
    wide = RationalGrid(fmpq_mat([[fmpq(v.numerator, v.denominator) for v in values]] * 70))
    assert grid_arrays.rational_parts(wide) is None
    assert fmt.format_array(wide).rows() == [tuple(expected)] * 70
    # the exact ties alone fit 62 bits: integer quotients and remainders, no floats
    exact = [v for v in values if v.denominator < 10 ** 8]
    grid = RationalGrid(fmpq_mat([[fmpq(v.numerator, v.denominator) for v in exact]] * 70))
    parts = grid_arrays.rational_parts(grid)
    assert parts is not None
    assert fmt.format_array(grid, parts).rows() == \
        [tuple(_expected(v, digits, places, rule) for v in exact)] * 70
    assert "0.000" in fmt.format_array(grid, parts).rows()[0] or places != 3


def test_enclosure_batch_writes_what_the_entry_path_writes():
    rng = random.Random(11)
    mids = [1.234565, -1.234565, 0.0004999999, -0.0004, 9.9999996, 123456.5, -2.5e-9,
            0.0, 3.3e-12, 7.0]
    mids += [rng.uniform(-1e3, 1e3) * 10 ** rng.randint(-12, 3) for _ in range(500)]
    rads = [0.0, 1e-20, 1e-12] * (len(mids) // 3 + 1)
    mid = np.array([mids], dtype=np.float64)
    rad = np.array([rads[:len(mids)]], dtype=np.float64)
    enclosure = Enclosure(mid, rad, np.ones(1, dtype=bool))
    for places, digits in ((None, 6), (None, 3), (4, None), (0, None)):
        for separator in (".", ","):
            old, old_open = texts_from_enclosure(enclosure, places, digits, separator)
            new, new_open = text_array_from_enclosure(enclosure, places, digits, separator)
            assert new_open.tolist() == old_open.tolist()
            assert [t for t, o in zip(new.rows()[0], new_open[0]) if not o] == \
                [t for t, o in zip(old[0], old_open[0]) if not o]
    texts, _ = text_array_from_enclosure(enclosure, 3, None)
    assert texts.rows()[0][6] == "0.000"           # -2.5e-9 to 3 places: no minus on zero


def test_text_array_json_rows_are_json_dumps():
    rng = random.Random(5)
    pool = ["0", "-1/3", "exp(2)", "ł", 'a"b', "c\\d", "\t", None, "1.25e-30", "x" * 40]
    rows = [[rng.choice(pool) for _ in range(7)] for _ in range(9)]
    array = from_rows(rows, 7)
    assert array.rows() == [tuple(row) for row in rows]
    assert array.json_rows() == [json.dumps(row, ensure_ascii=False) for row in rows]
    plain = from_rows([[t for t in row if t and t.isalnum()] or ["z"] for row in [["1"]] * 3], 1)
    assert plain.json_rows() == ['["1"]'] * 3
    numbers = fixed_texts(np.array([[5, 123, 0], [7, 10 ** 17, 42]]),
                          np.array([[True, False, True], [False, True, False]]),
                          np.array([[2, 1, 0], [0, 3, 5]]))
    expected = [("-0.05", "12.3", "-0"), ("7", "-100000000000000.000", "0.00042")]
    assert numbers.rows() == expected
    chosen = choose(np.array([[True, False, False], [False, False, True]]), b"-inf", numbers)
    expected = [("-inf", "12.3", "-0"), ("7", "-100000000000000.000", "-inf")]
    assert chosen.rows() == expected
    assert chosen.json_rows() == [json.dumps(list(row)) for row in expected]
    replaced = chosen.replaced([1, 3], ["a much longer text than the matrix", None])
    expected = [("-inf", "a much longer text than the matrix", "-0"),
                (None, "-100000000000000.000", "-inf")]
    assert replaced.rows() == expected
    assert replaced.json_rows() == [json.dumps(list(row)) for row in expected]
    both = stack([chosen, constant((1, 3), "wide text here"), replaced])
    assert both.rows() == chosen.rows() + [("wide text here",) * 3] + expected
    assert both.json_rows() == [json.dumps(list(row)) for row in both.rows()]


@pytest.mark.parametrize("width", [1, 3, 13, 59, 60, 61, 90])
def test_character_matrix_json_is_json_dumps_at_every_width(width):
    # texts placed anywhere in rows of one width, any bytes around them (zeros, quotes),
    # some of them multi-byte UTF-8, across the widths where the writer's mask comes
    # from its table (rows up to 64 bytes) and by comparison
    rng = np.random.default_rng(width)
    n, m = 7, 5
    lengths = rng.integers(1, width + 1, size=n * m)
    offsets = np.array([rng.integers(0, width - size + 1) for size in lengths])
    matrix = rng.integers(ord("a"), ord("z") + 1, size=(n * m, width), dtype=np.uint8)
    if width >= 3:     # a few texts of two- and three-byte UTF-8 characters
        for k in range(0, n * m, 4):
            letters = "\u00e9\u2212"[:int(lengths[k]) // 2] or "x"
            encoded = letters.encode()[:lengths[k]].decode("utf-8", "ignore").encode()
            lengths[k] = len(encoded)
            matrix[k, offsets[k]:offsets[k] + len(encoded)] = np.frombuffer(encoded, np.uint8)
    outside = np.ones(matrix.shape, dtype=bool)       # any byte around the texts: 0, '"', ...
    for k, (o, size) in enumerate(zip(offsets, lengths)):
        outside[k, o:o + size] = False
    matrix[outside] = rng.integers(0, 256, size=int(outside.sum()), dtype=np.uint8)
    texts = [bytes(matrix[k, o:o + size]).decode() for k, (o, size) in
             enumerate(zip(offsets, lengths))]
    array = stack([choose(np.zeros((n, m), dtype=bool), b"", from_rows(
        [texts[r * m:(r + 1) * m] for r in range(n)], m))])
    expected = [json.dumps(texts[r * m:(r + 1) * m], ensure_ascii=False) for r in range(n)]
    assert array.json_rows() == expected
    starts = np.arange(n * m) * width + offsets
    wide = TextArray((n, m), matrix.ravel(), starts, lengths, None, True, width)
    assert wide.json_rows() == expected
    pieces = b"".join(p if isinstance(p, bytes) else p.encode() for p in wide.json_lines())
    assert json.loads("[" + pieces.decode() + "]") == [texts[r * m:(r + 1) * m]
                                                     for r in range(n)]
    halves = stack([TextArray((3, m), matrix[:3 * m].ravel(), starts[:3 * m], lengths[:3 * m],
                              None, True, width),
                    TextArray((4, m), matrix[3 * m:].ravel(), starts[3 * m:] - 3 * m * width,
                              lengths[3 * m:], None, True, width)])
    assert halves.rows() == wide.rows()


def _spec(tmp_path, n: int, d: int, pool: list[str], seed: int, **options: object):
    rng = random.Random(seed)
    inputs = {name: [[rng.choice(pool) for _ in range(d)] for _ in range(n)] for name in "QKV"}
    path = tmp_path / f"spec-{seed}.json"
    path.write_text(json.dumps({"title": "t", "inputs": inputs,
                                "options": {"mask": "causal", **options}}), encoding="utf-8")
    return path


@pytest.mark.parametrize("options", [
    (), ("--digits", "3", "--rounding", "half-even"), ("--places", "4"),
    ("--max-terms", "5"), ("--max-terms", "0"), ("--locale", "pl", "--digits", "2"),
    ("--rounding", "truncate")])
def test_large_json_is_the_entry_by_entry_json(capsys, tmp_path, monkeypatch, options):
    # 72 x 72 steps take the whole-matrix path; few distinct entries make tied
    # scores, rational rows and equal values (the cases written row by row)
    pools = (["-0.5", "0", "0.5", "1"], [f"{x / 100:.2f}" for x in range(-99, 100)])
    for seed, pool in enumerate(pools):
        path = _spec(tmp_path, 72, 3, pool, seed)
        status, batch, err = run(capsys, "derive", str(path), "--format", "json", *options)
        assert status == 0, err
        monkeypatch.setattr(view, "ARRAY_MIN_ENTRIES", 10 ** 12)
        status, entry_by_entry, err = run(capsys, "derive", str(path), "--format", "json",
                                          *options)
        monkeypatch.undo()
        assert status == 0, err
        assert batch == entry_by_entry
    steps = {step["name"]: step for step in json.loads(batch)["steps"]}
    assert steps["weights"]["shape"] == [72, 72]


def test_streamed_output_is_all_or_nothing(tmp_path):
    target = tmp_path / "out.json"
    target.write_text("old", encoding="utf-8")
    os.chmod(target, 0o640)

    def pieces():
        yield "new "
        raise RuntimeError("stopped while writing")

    with pytest.raises(RuntimeError):
        files.write_atomically(target, pieces())
    assert target.read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]
    files.write_atomically(target, iter(["{", "}\n"]))
    assert target.read_text(encoding="utf-8") == "{}\n"
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640


def test_the_bar_of_a_large_json_counts_its_writing(tmp_path, monkeypatch):
    # a step of 4,096 entries or more is made (its rows twice: texts, decimals) and then
    # written (its rows twice: two matrices): the bar reaches its total only as the
    # last rows are written, not when the texts are made; inner tasks add nothing
    import io

    import symattn
    from symattn import progress
    from symattn.render.text import iter_json_steps

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    seen: list[tuple[int, int]] = []
    real_clear = progress._Bar.clear

    def clear(bar):                      # the task's end: what the bar counted
        seen.append((bar.done, bar.total))
        real_clear(bar)

    monkeypatch.setattr(progress._Bar, "clear", clear)
    derivation = symattn.derive(symattn.load(_spec(tmp_path, 72, 3, ["0.25", "-0.5", "1"], 3)))
    expected = sum((4 if step.value.shape[0] * step.value.shape[1] >= 4096 else 2) *
                   step.value.shape[0] for step in derivation.steps)
    with progress.enabled(Terminal()):
        views = view.iter_step_views(derivation, NumberFormat(), None, None, arrays=True)
        pieces = iter_json_steps("t", NumberFormat(), views)
        for piece in pieces:
            if isinstance(piece, bytes):     # a large matrix's rows: counted as written
                before = progress._active.done
                break
        list(pieces)
    assert seen == [(expected, expected)]
    assert before < expected - 72


def test_the_bar_moves_while_long_softmax_closed_forms_are_written(tmp_path):
    # with every closed form asked for (--max-terms 0), a softmax step's texts are written
    # 64 rows at a time by the grid: the bar hears of each block, and the step's rows are
    # counted once in all
    import symattn

    derivation = symattn.derive(symattn.load(_spec(tmp_path, 150, 2, ["0.25", "-0.5", "1"],
                                                   2)))
    told: list[int] = []
    texts = grid_arrays.text_array(derivation["weights"].value, None, told.append)
    assert told == [64, 64, 22]
    assert texts.rows(149, 150)[0][0].startswith("exp(")
    told.clear()
    grid_arrays.text_array(derivation["scores"].value, None, told.append)
    assert told == []        # a rational grid: one pass, the view counts it
