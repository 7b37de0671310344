"""Each slip of the catalogue, planted in a document on a bundled example, is named by check.

The slipped numbers are computed here, independently, with mpmath (tests/reference.py
and the few lines below: a softmax down the columns, a mask applied after the softmax,
A^T V ...), never with symattn's catalogue. Each test prints them as the claims of the
example's spec, runs ``check``, and asserts that every wrong number names that slip and
only that slip (both, where two slips give the same number).
"""

from __future__ import annotations

import json
import tomllib
from decimal import ROUND_DOWN, ROUND_HALF_UP, Decimal
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest

from symattn import messages
from symattn.problem.problem import Problem
from symattn.render.report import report_json, report_text
from symattn.verify.checker import check
from symattn.verify.slips import CATALOGUE, SLIPS
from tests.reference import NEG_INF, causal, fractions, identity, matmul, mp, mp_attention

EXAMPLES = Path(__file__).resolve().parent.parent / "symattn" / "examples"
PLACES = 4


def example_spec(name: str) -> dict[str, object]:
    """A bundled example's spec, without its claims, comparisons and variants."""
    data = tomllib.loads((EXAMPLES / f"{name}.toml").read_text(encoding="utf-8"))
    for key in ("claims", "compare", "variants"):
        data.pop(key, None)
    return data


def printed(value: object, places: int = PLACES, rounding: str = ROUND_HALF_UP) -> str:
    """The 50-digit mpmath value written at ``places`` (half up, or truncated)."""
    if value == NEG_INF:
        return "-inf"
    text = mpmath.nstr(value, 40, min_fixed=-mpmath.inf, max_fixed=mpmath.inf)
    return str(Decimal(text).quantize(Decimal(1).scaleb(-places), rounding=rounding))


def named(data: dict[str, object], claims: dict[str, object], language: str = "en"
          ) -> list[tuple[str, tuple[str, ...]]]:
    """(position, slips) of every wrong verdict of the spec with these claims."""
    report = check(Problem.from_mapping({**data, "claims": claims, "language": language}))
    assert all(v.verdict != "undecided" for v in report.verdicts)
    return [(v.position, v.slips) for v in report.verdicts if v.verdict == "wrong"]


def assert_named(found: list[tuple[str, tuple[str, ...]]], *slips: str,
                 also: dict[str, tuple[str, ...]] | None = None) -> None:
    """Every wrong number names ``slips`` and only them; ``also``: the numbers that two
    slips give (each shown to be the same number where the test writes it)."""
    assert found, "the planted numbers should be wrong"
    also = also or {}
    for position, names in found:
        assert names == also.get(position, slips), (position, names)
    assert set(also) <= {position for position, _ in found}


def rows_of(matrix: list[list[object]], places: int = PLACES) -> list[list[str]]:
    return [[printed(x, places) for x in row] for row in matrix]


# --------------------------------------------------------------- the reference steps
# 000-cat-chases-mouse: X = E (the first three vocabulary columns), identity projections,
# so Q = K = V = X; d_k = 2; causal mask.
CAT_X = fractions([[1, 0], [0.2, 1], [0.8, 0]])
CAT_MASK = causal(3, 3)


def cat(factor: object = None, allowed: list[list[bool]] | None = None) -> dict[str, list]:
    factor = 1 / mpmath.sqrt(2) if factor is None else factor
    return mp_attention(Q=CAT_X, K=CAT_X, V=CAT_X, factor=factor,
                        allowed=CAT_MASK if allowed is None else allowed)


def product(a: list[list[object]], b: list[list[object]]) -> list[list[object]]:
    return [[mpmath.fsum(mp(a[i][c]) * mp(b[c][k]) for c in range(len(b)))
             for k in range(len(b[0]))] for i in range(len(a))]


def mp_transpose(a: list[list[object]]) -> list[list[object]]:
    return [list(column) for column in zip(*a)]


def normalised(exp: list[list[object]], how: str) -> list[list[object]]:
    """Exponentials divided by their column sums or by the sum of the whole matrix."""
    n, m = len(exp), len(exp[0])
    if how == "columns":
        sums = [mpmath.fsum(exp[i][j] for i in range(n)) for j in range(m)]
        return [[exp[i][j] / sums[j] for j in range(m)] for i in range(n)]
    total = mpmath.fsum(x for row in exp for x in row)
    return [[x / total for x in row] for row in exp]


def own_output_truncated(claims: dict[str, list[list[str]]], i: int, k: int) -> str:
    """Output entry (i, k) from the printed weights (the document's own numbers) times V,
    truncated."""
    with mpmath.workdps(50):
        value = mpmath.fsum(mpmath.mpf(w) * mp(CAT_X[j][k])
                            for j, w in enumerate(claims["weights"][i]))
        return printed(value, PLACES, ROUND_DOWN)


def cat_claims(steps: dict[str, list], names: tuple[str, ...] = ("weights", "output")
               ) -> dict[str, object]:
    return {name: rows_of(steps[name]) for name in names}


def test_a_right_document_names_no_slip() -> None:
    found = named(example_spec("000-cat-chases-mouse"), cat_claims(cat()))
    assert found == []


def test_a_random_wrong_number_names_no_slip() -> None:
    right = cat()
    claims = cat_claims(right)
    claims["weights"][2][0] = "0.1234"    # the exact 0.4002... : no slip gives 0.1234
    found = named(example_spec("000-cat-chases-mouse"), claims)
    assert found == [("weights[3,1]", ())]


def test_no_scaling() -> None:
    assert_named(named(example_spec("000-cat-chases-mouse"), cat_claims(cat(mp(1)))),
                 "no_scaling")


def test_dk_scaling() -> None:
    assert_named(named(example_spec("000-cat-chases-mouse"),
                       cat_claims(cat(mpmath.mpf(1) / 2))), "dk_scaling")


def test_column_softmax() -> None:
    steps = cat()
    weights = normalised(steps["exp"], "columns")
    claims = {"weights": rows_of(weights), "output": rows_of(product(weights, CAT_X))}
    # Q = K: the scores are symmetric, so column 1's softmax is row 1's unmasked softmax
    # (the mask applied after the softmax); key 3 is seen by query 3 alone, so its column
    # gives 1, as weights[1,1] is; output[3,1] is also the document's own weights times V,
    # truncated.
    free = cat(allowed=[[True] * 3 for _ in range(3)])["weights"]
    assert printed(free[0][0]) == claims["weights"][0][0]
    assert claims["weights"][2][2] == "1.0000"
    assert own_output_truncated(claims, 2, 0) == claims["output"][2][0]
    assert_named(named(example_spec("000-cat-chases-mouse"), claims), "column_softmax",
                 also={"weights[1,1]": ("column_softmax", "mask_after_softmax"),
                       "weights[3,3]": ("column_softmax", "other_entry"),
                       "output[3,1]": ("column_softmax", "truncation")})


def test_matrix_softmax() -> None:
    steps = cat()
    weights = normalised(steps["exp"], "matrix")
    claims = {"weights": rows_of(weights), "output": rows_of(product(weights, CAT_X))}
    # output[3,1] is also the document's own weights times V, truncated
    assert own_output_truncated(claims, 2, 0) == claims["output"][2][0]
    assert_named(named(example_spec("000-cat-chases-mouse"), claims), "matrix_softmax",
                 also={"output[3,1]": ("matrix_softmax", "truncation")})


def test_mask_after_softmax() -> None:
    free = cat(allowed=[[True] * 3 for _ in range(3)])
    weights = [[w if CAT_MASK[i][j] else mpmath.mpf(0) for j, w in enumerate(row)]
               for i, row in enumerate(free["weights"])]
    claims = {"weights": rows_of(weights), "output": rows_of(product(weights, CAT_X))}
    # Row 1 is column 1's softmax (symmetric scores); row 2's open weights are those of
    # query 2 with key 3 leaked (the unmasked row), up to the 0 left at key 3.
    assert printed(normalised(cat()["exp"], "columns")[0][0]) == claims["weights"][0][0]
    assert claims["weights"][1][:2] == rows_of(free["weights"])[1][:2]
    both = ("mask_after_softmax", "leaked_future")
    assert_named(named(example_spec("000-cat-chases-mouse"), claims), "mask_after_softmax",
                 also={"weights[1,1]": ("column_softmax", "mask_after_softmax"),
                       "weights[2,1]": both, "weights[2,2]": both})


def test_leaked_future_key() -> None:
    leaked = [row[:] for row in CAT_MASK]
    leaked[1][2] = True                   # query 2 sees key 3
    steps = cat(allowed=leaked)
    claims = {"weights[2]": rows_of(steps["weights"])[1], "output[2]": rows_of(
        steps["output"])[1]}
    # query 2 with every key open: the mask applied after the softmax gives the same
    # weights of keys 1 and 2 (and 0 for key 3)
    both = ("mask_after_softmax", "leaked_future")
    assert_named(named(example_spec("000-cat-chases-mouse"), claims), "leaked_future",
                 also={"weights[2,1]": both, "weights[2,2]": both})


def test_diagonal_hidden() -> None:
    # Each query sees only the keys before it: query 2 key 1 alone, query 3 keys 1 and 2.
    scaled = cat()["scaled"]
    exp = [mpmath.exp(scaled[2][0]), mpmath.exp(scaled[2][1])]
    claims = {"weights[2]": ["1.0000", "0.0000", "0.0000"],
              "weights[3]": [printed(e / mpmath.fsum(exp)) for e in exp] + ["0.0000"]}
    # 1 and 0 are also the numbers of weights[1,1] and weights[1,2]
    other = ("diagonal_hidden", "other_entry")
    assert_named(named(example_spec("000-cat-chases-mouse"), claims), "diagonal_hidden",
                 also={"weights[2,1]": other, "weights[2,2]": other, "weights[3,3]": other})


def test_rounded_carried() -> None:
    scaled = cat()["scaled"]
    rounded = [[Fraction(printed(x, 1)) for x in row] for row in scaled]
    steps = mp_attention(scaled=rounded, V=CAT_X, allowed=CAT_MASK)
    claims = {"weights": rows_of(steps["weights"]), "output": rows_of(steps["output"])}
    assert_named(named(example_spec("000-cat-chases-mouse"), claims), "rounded_carried")


def test_at_v() -> None:
    steps = cat()
    output = product(mp_transpose(steps["weights"]), CAT_X)
    # (A^T V)[3,2] = a_33 v_32 = 0, the number of output[1,2]
    assert output[2][1] == 0
    assert_named(named(example_spec("000-cat-chases-mouse"), {"output": rows_of(output)}),
                 "at_v", also={"output[3,2]": ("at_v", "other_entry")})


def test_truncation() -> None:
    steps = cat()
    claims = {"weights": [[printed(x, PLACES, ROUND_DOWN) for x in row]
                          for row in steps["weights"]]}
    # weights[3,2] truncated is also what the scaled scores rounded to 3 places give
    rounded = [[Fraction(printed(x, 3)) for x in row] for row in steps["scaled"]]
    carried = mp_attention(scaled=rounded, V=CAT_X, allowed=CAT_MASK)["weights"]
    assert printed(carried[2][1]) == claims["weights"][2][1]
    assert_named(named(example_spec("000-cat-chases-mouse"), claims), "truncation",
                 also={"weights[3,2]": ("rounded_carried", "truncation")})


def test_percent_fraction_both_ways() -> None:
    weight = cat()["weights"][2][0]        # 0.4002...
    claims = {"weights[3,1]": printed(weight * 100, 2),            # 40.02 without "%"
              "weights[3,2] @ percent": printed(cat()["weights"][2][1], 4) + "%"}
    found = named(example_spec("000-cat-chases-mouse"), claims)
    assert [position for position, _ in found] == ["weights[3,1]", "weights[3,2]"]
    assert_named(found, "percent_fraction")


def test_sign() -> None:
    output = cat()["output"]
    claims = {"output[3,1]": "-" + printed(output[2][0])}
    assert_named(named(example_spec("000-cat-chases-mouse"), claims), "sign")


def test_other_entry() -> None:
    weights = cat()["weights"]
    claims = {"weights[3,1]": printed(weights[2][2])}
    assert_named(named(example_spec("000-cat-chases-mouse"), claims), "other_entry")


# 015-cosine-norms: Q, K and V = I all 2 x 2, no mask: Q K^T is not symmetric.
COS_Q = fractions([[-0.1, 1.0], [0.8, 0.4]])
COS_K = fractions([[1.0, 0.2], [0.6, 0.9]])


def test_qk_swapped() -> None:
    steps = mp_attention(Q=COS_K, K=COS_Q, V=identity(2), factor=1 / mpmath.sqrt(2))
    claims = {"scores": rows_of(steps["scores"]), "weights": rows_of(steps["weights"])}
    # the transposed scores: s_12 printed where s_21 is, and the reverse
    other = ("qk_swapped", "other_entry")
    assert_named(named(example_spec("015-cosine-norms"), claims), "qk_swapped",
                 also={"scores[1,2]": other, "scores[2,1]": other})


def test_kv_swapped() -> None:
    steps = mp_attention(Q=COS_Q, K=identity(2), V=COS_K, factor=1 / mpmath.sqrt(2))
    claims = {"weights": rows_of(steps["weights"]), "output": rows_of(steps["output"])}
    assert_named(named(example_spec("015-cosine-norms"), claims), "kv_swapped")


def test_v_at_and_at_v_give_the_same_numbers_when_v_is_the_identity_so_both_are_named() -> None:
    steps = mp_attention(Q=COS_Q, K=COS_K, V=identity(2), factor=1 / mpmath.sqrt(2))
    output = product(identity(2), mp_transpose(steps["weights"]))     # V A^T with V = I
    # ... and A^T V = A^T too. The right output is A itself, so A^T's entry (1,2) = a_21
    # is also the number of output[2,1] (another entry), and the reverse; the diagonal
    # is right.
    both = ("at_v", "v_at")
    assert_named(named(example_spec("015-cosine-norms"), {"output": rows_of(output)}),
                 *both, also={"output[1,2]": both + ("other_entry",),
                              "output[2,1]": both + ("other_entry",)})


def test_v_at() -> None:
    # V = [[1, 2], [0, 1]]: A^T V and V A^T differ.
    data = example_spec("015-cosine-norms")
    V = fractions([[1, 2], [0, 1]])
    data["inputs"] = {**data["inputs"], "V": [[1, 2], [0, 1]]}
    steps = mp_attention(Q=COS_Q, K=COS_K, V=V, factor=1 / mpmath.sqrt(2))
    output = product(V, mp_transpose(steps["weights"]))
    # (V A^T)[2,1] = a_12 = (A^T V)[2,1]
    assert printed(product(mp_transpose(steps["weights"]), V)[1][0]) == rows_of(output)[1][0]
    assert_named(named(data, {"output": rows_of(output)}), "v_at",
                 also={"output[2,1]": ("at_v", "v_at")})


# 015-rounded-inputs: d_model = 3 (the columns of X), d_k = 2; no mask.
def test_dmodel_scaling() -> None:
    data = example_spec("015-rounded-inputs")
    data.pop("inputs_printed", None)     # judged as exact inputs here
    X = fractions(data["inputs"]["X"])
    Q = matmul(X, fractions(data["inputs"]["W_Q"]))
    K = matmul(X, fractions(data["inputs"]["W_K"]))
    steps = mp_attention(Q=Q, K=K, factor=1 / mpmath.sqrt(3))
    assert_named(named(data, {"weights": rows_of(steps["weights"])}), "dmodel_scaling")


# 003-multi-head: d_model = 4, two heads of d_k = 2, one K/V head (W_K, W_V) shared.
def test_dmodel_and_dk_scaling_are_both_named_when_sqrt_d_model_is_d_k() -> None:
    data = example_spec("003-multi-head")
    X = fractions(data["inputs"]["X"])
    Q1 = [row[:2] for row in X]                       # W_Q = I: head 1 takes columns 1-2
    K = matmul(X, fractions(data["inputs"]["W_K"]))
    steps = mp_attention(Q=Q1, K=K, factor=mpmath.mpf(1) / 2, allowed=causal(3, 3))
    claims = {"head1.weights[3]": rows_of(steps["weights"])[2]}
    assert_named(named(data, claims), "dk_scaling", "dmodel_scaling")   # sqrt(4) = 2


# 003-entropy-temperature: d_k = 4 and T = 0.3, no mask; entropy printed.
def test_temperature_multiplied() -> None:
    data = example_spec("003-entropy-temperature")
    inputs = {name: fractions(data["inputs"][name]) for name in ("Q", "K", "V")}
    steps = mp_attention(**inputs, factor=mpmath.mpf(3) / 20)    # (1/2) * 0.3
    claims = {"weights[1]": rows_of(steps["weights"])[0]}
    assert_named(named(data, claims), "temperature_multiplied")


def test_natural_log_in_the_entropy() -> None:
    data = example_spec("003-entropy-temperature")
    inputs = {name: fractions(data["inputs"][name]) for name in ("Q", "K", "V")}
    weights = mp_attention(**inputs, factor=1 / (2 * mpmath.mpf(3) / 10))["weights"]
    nats = [-mpmath.fsum(w * mpmath.log(w) for w in row) for row in weights]
    claims = {"entropy": [printed(h) for h in nats],
              "entropy_max[1]": printed(mpmath.log(6))}
    assert_named(named(data, claims), "natural_log")


# ------------------------------------------------------------------ the catalogue
def test_every_slip_of_the_catalogue_is_tested_here() -> None:
    tested = {name for name in globals() if name.startswith("test_")}
    for slip in CATALOGUE:
        words = slip.id.replace("_", " ")
        assert any(slip.id in name or words in name.replace("_", " ") for name in tested), \
            slip.id


def test_the_json_schema_lists_the_catalogue() -> None:
    schema = json.loads((EXAMPLES.parent / "schemas" / "check.json").read_text())
    assert schema["$defs"]["slip"]["enum"] == [slip.id for slip in CATALOGUE]


@pytest.mark.parametrize("language", ["en", "pl", "cs", "ru", "uk"])
def test_the_reason_names_the_slip_in_the_page_language(language: str) -> None:
    data = example_spec("000-cat-chases-mouse")
    report = check(Problem.from_mapping({**data, "language": language,
                                         "claims": cat_claims(cat(mp(1)), ("weights",))}))
    text = report_text([report])
    explain = messages.load(language).text("slip.no_scaling.explain").split("$")[0].strip()
    assert explain and explain in text


def test_json_claims_carry_the_slip_id_or_a_list_of_ids() -> None:
    data = example_spec("015-cosine-norms")
    steps = mp_attention(Q=COS_Q, K=COS_K, V=identity(2), factor=1 / mpmath.sqrt(2))
    output = product(identity(2), mp_transpose(steps["weights"]))
    claims = {"output": rows_of(output), "weights[1,1]": "-" + printed(steps["weights"][0][0])}
    report = check(Problem.from_mapping({**data, "claims": claims}))
    records = json.loads(report_json([report]))["reports"][0]["claims"]
    slips = {r["position"]: r.get("slip") for r in records}
    assert slips["weights[1,1]"] == "sign"
    # A^T off the diagonal: both orders, and the other entry of the right output (A itself)
    assert slips["output[1,2]"] == ["at_v", "v_at", "other_entry"]
    assert all("slip" not in r for r in records if r["verdict"] == "ok")


def test_first_steps_are_steps() -> None:
    steps = {"scores", "scaled", "masked", "exp", "weights", "output", "entropy", "written"}
    assert {slip.first_step for slip in CATALOGUE} <= steps
    assert SLIPS["kv_swapped"].first_step == "scores"


# ------------------------------------------------------------ find-the-error sheets
@pytest.mark.parametrize("mistake", ["no_scaling", "column_softmax", "kv_swapped",
                                     "leaked_future"])
def test_a_find_the_error_sheet_plants_the_slip_that_check_names(mistake: str) -> None:
    import random

    from symattn.worksheets.mistakes import find_error
    from symattn.worksheets.model import Setup

    exercise = find_error(random.Random(7), Setup(mistakes=(mistake,)))
    assert exercise.facts["mistake"] == mistake
    spec = {**exercise.problems[0], "claims": exercise.facts["claims"]}
    report = check(Problem.from_mapping(spec))
    first = next(v for v in report.verdicts if v.verdict == "wrong"
                 and v.step == exercise.facts["step"])
    assert mistake in first.slips


def test_a_number_printed_where_the_mask_has_minus_infinity_names_the_leaked_key() -> None:
    scaled = cat()["scaled"]
    claims = {"masked[2]": [printed(x, 3) for x in scaled[1]]}   # key 3 left open
    found = named(example_spec("000-cat-chases-mouse"), claims)
    # a mask applied only after the softmax leaves every score in Z open too
    assert found == [("masked[2,3]", ("mask_after_softmax", "leaked_future"))]


def test_minus_infinity_printed_on_the_diagonal_names_the_hidden_diagonal() -> None:
    scaled = cat()["scaled"]
    claims = {"masked[2]": [printed(scaled[1][0], 3), "-inf", "-inf"],
              "masked[3]": [printed(scaled[2][0], 3), printed(scaled[2][1], 3), "-inf"]}
    found = named(example_spec("000-cat-chases-mouse"), claims)
    assert found == [("masked[2,2]", ("diagonal_hidden",)), ("masked[3,3]", ("diagonal_hidden",))]


@pytest.mark.parametrize("language", ["en", "pl", "cs", "ru", "uk"])
def test_every_slip_is_written_in_every_language_and_format(language: str) -> None:
    from symattn.render.reasons import NoteWriter
    from symattn.verify.hints import slip_reason
    from symattn.verify.verdicts import reason_text

    catalog = messages.load(language)
    for mode in ("latex", "markdown", "plain"):
        writer = NoteWriter(catalog, None, ".", mode=mode)
        for slip in CATALOGUE:
            text = writer.clause(slip_reason(slip.id))
            assert text.count("$") % 2 == 0 and "{{" not in text, (slip.id, text)
            if mode == "plain":
                assert "\\" not in text, (slip.id, text)
    for slip in CATALOGUE:      # the JSON reason: English, without LaTeX
        english = reason_text((slip_reason(slip.id),))
        assert "\\" not in english and "$" not in english and "{" not in english, english


def test_column_softmax_in_one_head_of_several() -> None:
    data = example_spec("003-multi-head")
    X = fractions(data["inputs"]["X"])
    K = matmul(X, fractions(data["inputs"]["W_K"]))
    steps = mp_attention(Q=[row[2:] for row in X], K=K, factor=1 / mpmath.sqrt(2),
                         allowed=causal(3, 3))          # head 2: columns 3-4 of W_Q = I
    with mpmath.workdps(50):
        weights = normalised(steps["exp"], "columns")
    found = named(data, {"head2.weights": rows_of(weights)})
    # Key 3 is seen by query 3 alone: its column gives 1, as head2.weights[1,1] is. Here
    # z_21 = 0 and z_32 = 2 z_22, so column 2's softmax (keys seen by queries 2 and 3) is
    # row 2's softmax, the right head2.weights[2,1] and [2,2].
    right = rows_of(steps["weights"])
    assert rows_of(weights)[1][1] == right[1][0] and rows_of(weights)[2][1] == right[1][1]
    other = ("column_softmax", "other_entry")
    assert_named(found, "column_softmax", also={"head2.weights[3,3]": other,
                                                "head2.weights[2,2]": other,
                                                "head2.weights[3,2]": other})


def test_a_closed_form_printed_where_the_entry_is_masked_is_wrong_without_a_slip() -> None:
    """A printed sqrt(2)/2 where the mask makes the entry -inf: wrong, and no slip is
    looked for (the slips give decimals)."""
    import symattn

    spec = ('[inputs]\nscaled = [[0, 0], [0, 0]]\nV = [[1, 0], [0, 1]]\n'
            '[options]\nmask = "causal"\n[claims]\n"masked[1,2]" = "sqrt(2)/2"\n')
    report = symattn.check(symattn.derive(symattn.loads(spec, "m.toml")))
    assert [(v.position, v.verdict) for v in report.verdicts] == [("masked[1,2]", "wrong")]
