"""The sizes calculator (symattn.sizes, `symattn sizes`) and size specs in `symattn check`.

Expected values are worked out by hand in each test (products written out),
never taken from the code under test.
"""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

import symattn.problem.examples
from symattn import sizes
from symattn.errors import InputError
from symattn.sizes import ModelShape, compute, read_size_printed
from cli_support import run, assert_one_line_error

ROOT = Path(__file__).resolve().parent.parent
SIZE_EXAMPLES = ["001-score-matrix-memory", "004-head-dimensions"]
MiB, GiB = 1024 * 1024, 1024 * 1024 * 1024






def check(mapping, rounding=None):
    return sizes.check_spec(mapping, "test.toml", rounding)


def verdicts(report):
    return {(v.position, v.label): v for v in report.verdicts}


# ------------------------------------------------------------------ ModelShape
def test_defaults_are_resolved():
    shape = ModelShape(d_model=4096, heads=32, seq_len=1024)
    assert (shape.batch, shape.layers, shape.kv, shape.ff, shape.vocab) == (1, 1, 32, 16384, None)
    assert shape.dtype == "fp16" and shape.bytes_per_element == 2 and shape.bias is False
    assert shape.head_dim == 128
    assert ModelShape(8, 2, 4, dtype="BF16").dtype == "bf16"
    assert ModelShape(8, 2, 4, dtype="float32").bytes_per_element == 4


@pytest.mark.parametrize("kwargs, message", [
    (dict(d_model=768, heads=10, seq_len=8), "heads (10) must divide d_model (768)"),
    (dict(d_model=4096, heads=32, seq_len=8, kv_heads=5), "kv_heads (5) must divide heads (32)"),
    (dict(d_model=4096, heads=32, seq_len=8, kv_heads=64), "kv_heads (64) must divide heads"),
    (dict(d_model=0, heads=1, seq_len=8), "d_model must be a positive whole number, got 0"),
    (dict(d_model=8, heads=2, seq_len=-1), "seq_len must be a positive whole number"),
    (dict(d_model=8, heads=2, seq_len=4.0), "seq_len must be a positive whole number, got 4.0"),
    (dict(d_model=8, heads=True, seq_len=4), "heads must be a positive whole number, got True"),
    (dict(d_model=8, heads=2, seq_len=4, batch=0), "batch must be a positive whole number"),
    (dict(d_model=8, heads=2, seq_len=4, vocab=0), "vocab must be a positive whole number"),
    (dict(d_model=8, heads=2, seq_len=4, dtype="fp4"), "unknown dtype 'fp4'"),
    (dict(d_model=8, heads=2, seq_len=4, bias="yes"), "bias must be true or false"),
])
def test_bad_shapes_are_clear_input_errors(kwargs, message):
    with pytest.raises(InputError) as error:
        ModelShape(**kwargs)
    assert message in str(error.value)


# ------------------------------------------------------------------ compute
def test_seed_001_exercise_by_hand():
    s = compute(ModelShape(d_model=4096, heads=32, seq_len=1024, dtype="fp16"))
    assert s["head_dim"] == 128                               # 4096 / 32
    assert s["score_elements"] == 33_554_432 == 32 * 1024 * 1024
    assert s["score_bytes"] == 67_108_864 == 64 * MiB         # 2 bytes each
    assert sizes.format_bytes(s["score_bytes"]) == "64 MiB"
    # W_Q, W_K, W_V, W_O are 4096 x 4096 = 16,777,216 each; W_O is exactly a quarter
    for name in ("wq_params", "wk_params", "wv_params", "wo_params"):
        assert s[name] == 16_777_216
    assert s["attention_params"] == 67_108_864
    assert s["wo_share"] == Fraction(1, 4)
    assert s.tensor("W_O").sizes == (4096, 4096)
    assert s.tensor("scores").sizes == (1, 32, 1024, 1024)
    assert s.tensor("scores").dims == ("B", "heads", "T", "T")
    assert s.tensor("Q_heads").sizes == (1, 32, 1024, 128)
    assert s.tensor("concat").sizes == (1, 1024, 4096)
    # FFN: 2 x 4096 x 16384 = 134,217,728; one layer 67,108,864 + 134,217,728
    assert s["ffn_params"] == 134_217_728
    assert s["layer_params"] == s["total_params"] == 201_326_592
    assert dict(s.score_bytes_by_dtype) == {"fp32": 128 * MiB, "fp16/bf16": 64 * MiB,
                                            "fp8/int8": 32 * MiB}


def test_seed_001_long_sequence_is_two_billion_scores():
    s = compute(ModelShape(4096, 32, 8192))
    assert s["score_elements"] == 2_147_483_648 == 32 * 8192 * 8192 == 2 ** 31
    assert sizes.format_bytes(s["score_bytes"]) == "4 GiB"     # 2^32 bytes in fp16


def test_seed_004_head_dimensions():
    assert compute(ModelShape(768, 12, 1024))["head_dim"] == 64          # GPT-2
    assert compute(ModelShape(12288, 96, 2048))["head_dim"] == 128       # GPT-3


def test_grouped_query_attention_by_hand():
    # 32 query heads share 8 K/V heads; 32 layers; 4096-token sequence; fp16
    s = compute(ModelShape(4096, 32, 4096, kv_heads=8, layers=32))
    assert s["kv_dim"] == 1024                                 # 8 x 128
    assert s["wk_params"] == s["wv_params"] == 4096 * 1024 == 4_194_304
    assert s["attention_params"] == 2 * 16_777_216 + 2 * 4_194_304 == 41_943_040
    assert s["wo_share"] == Fraction(16_777_216, 41_943_040) == Fraction(2, 5)
    # per token: K and V (2) x 32 layers x 8 heads x 128 x 2 bytes = 131,072 = 128 KiB
    assert s["kv_cache_bytes_per_token"] == 131_072
    assert s["kv_cache_bytes"] == 131_072 * 4096 == 512 * MiB
    assert s["kv_cache_bytes_mha"] == 2 * 32 * 32 * 128 * 2 * 4096 == 2 * GiB
    assert s["gqa_factor"] == 4
    assert s["kv_cache_bytes_saved"] == 2 * GiB - 512 * MiB == 1_610_612_736
    assert s.tensor("K_heads").sizes == (1, 8, 4096, 128)
    assert s.tensor("kv_cache").sizes == (32, 2, 1, 8, 4096, 128)


def test_batch_layers_and_dtype_scale_the_memory():
    s = compute(ModelShape(4096, 32, 1024, batch=4, layers=2, dtype="fp32"))
    assert s["score_elements"] == 4 * 32 * 1024 * 1024        # per layer, whole batch
    assert s["score_bytes"] == 4 * 32 * 1024 * 1024 * 4
    assert s["score_bytes_all_layers"] == 2 * s["score_bytes"]
    assert s["kv_cache_bytes"] == 2 * 2 * 32 * 128 * 4 * 1024 * 4
    assert s["gqa_factor"] == 1 and s["kv_cache_bytes_saved"] == 0


def test_gpt2_small_with_biases_and_vocabulary():
    s = compute(ModelShape(768, 12, 1024, layers=12, vocab=50257, bias=True))
    assert s["wq_params"] == 768 * 768 + 768 == 590_592
    assert s["attention_params"] == 4 * 590_592 == 2_362_368
    assert s["ffn_params"] == 768 * 3072 + 3072 + 3072 * 768 + 768 == 4_722_432
    assert s["layer_params"] == 7_084_800
    assert s["embedding_params"] == 50257 * 768 == 38_597_376
    # layer norms and position embeddings are not counted (the published
    # 124,439,808 adds 786,432 positions and 38,400 norm parameters)
    assert s["total_params"] == 12 * 7_084_800 + 38_597_376 == 123_614_976
    assert s.tensor("embedding").sizes == (50257, 768)
    assert "embedding_params" not in compute(ModelShape(768, 12, 1024))


def test_quantity_names_are_the_documented_ones():
    s = compute(ModelShape(768, 12, 1024, vocab=10))
    assert tuple(s.names()) == sizes.QUANTITY_NAMES
    docs = (ROOT / "docs" / "sizes.md").read_text(encoding="utf-8")
    for name in sizes.QUANTITY_NAMES:
        assert f"`{name}`" in docs, name
    for tensor in s.tensors:
        assert f"`{tensor.name}`" in docs, tensor.name


def test_huge_sizes_stay_exact():
    s = compute(ModelShape(2 ** 40, 2 ** 10, 2 ** 40, layers=10 ** 6))
    assert s["score_elements"] == 2 ** 10 * 2 ** 80                 # no float rounding
    assert s["score_bytes"] == 2 ** 91


# ------------------------------------------------------------------ formatting
def test_formatters_are_exact():
    assert sizes.format_bytes(64 * MiB) == "64 MiB"
    assert sizes.format_bytes(GiB) == "1 GiB"
    assert sizes.format_bytes(1536) == "1.5 KiB"
    assert sizes.format_bytes(1023) == "1023 B"
    assert sizes.format_bytes(10 ** 9) == "~953.67 MiB"      # 953.674316... MiB
    assert sizes.format_bytes(3 * 2 ** 50 + 1) == "~3.00 PiB"
    assert sizes.format_bytes_decimal(64 * MiB) == "~67.11 MB"  # 67.108864 MB
    assert sizes.format_bytes_decimal(2 * 10 ** 9) == "2 GB"
    assert sizes.format_count(2 ** 31) == "~2.15 billion"
    assert sizes.format_count(1_500_000) == "1.5 million"
    assert sizes.format_ratio(Fraction(2, 5)) == "40%"
    assert sizes.format_ratio(Fraction(2, 3)) == "~66.67%"
    assert sizes.group_digits(33_554_432, " ") == "33 554 432"


# ------------------------------------------------------------------ printed sizes
@pytest.mark.parametrize("text, kind, value, places", [
    ("33 554 432", "elements", 33_554_432, 0),
    ("33\u202f554\u202f432", "elements", 33_554_432, 0),
    ("2,147,483,648", "elements", 2_147_483_648, 0),
    ("2.147.483.648", "elements", 2_147_483_648, 0),
    ("2_147_483_648", "elements", 2_147_483_648, 0),
    ("1,024", "count", 1024, 0),
    ("128", "count", 128, 0),
    (128, "count", 128, 0),
    ("64 MiB", "bytes", 64 * MiB, 0),
    ("64MiB", "bytes", 64 * MiB, 0),
    ("0.0625 GiB", "bytes", 64 * MiB, 4),
    ("67.1 MB", "bytes", 67_100_000, 1),
    ("67,1 MB", "bytes", 67_100_000, 1),
    ("1,5 GiB", "bytes", 3 * GiB // 2, 1),
    ("67,108,864 bytes", "bytes", 67_108_864, 0),
    ("25%", "ratio", Fraction(1, 4), 0),
    ("25 %", "ratio", Fraction(1, 4), 0),
    ("0.25", "ratio", Fraction(1, 4), 2),
    ("1/4", "ratio", Fraction(1, 4), None),
    ("2^31", "elements", 2 ** 31, None),
    ("~2e9", "elements", 2 * 10 ** 9, -9),
    ("≈ 2.1e9", "elements", 2_100_000_000, -8),
    ("4x", "count", 4, 0),
    ("4 ×", "count", 4, 0),
])
def test_printed_sizes_are_read_exactly(text, kind, value, places):
    printed = read_size_printed(text, kind)
    assert printed.base_value() == value
    assert printed.places == places


def test_decimal_comma_option_changes_only_the_ambiguous_form():
    assert read_size_printed("1,024", "bytes").base_value() == 1024
    assert read_size_printed("1,024", "bytes", decimal_comma=True).base_value() == \
        Fraction(1024, 1000)
    assert read_size_printed("0,125", "ratio").base_value() == Fraction(1, 8)


@pytest.mark.parametrize("text, kind, message", [
    ("about a quarter", "ratio", "not a printed size"),
    ("2 billion", "elements", "not a printed size"),
    ("64 MiB", "elements", "no byte unit"),
    ("25%", "bytes", "percentage"),
    ("64 kiB", "bytes", "unknown unit"),
    ("2^99999", "elements", "exponents"),
    ("__import__('os')", "count", "not a printed size"),
])
def test_unreadable_printed_sizes_are_input_errors(text, kind, message):
    with pytest.raises(InputError) as error:
        read_size_printed(text, kind)
    assert message in str(error.value)


# ------------------------------------------------------------------ check_spec
SEED_001 = {"title": "t", "sizes": {"d_model": 4096, "heads": 32, "seq_len": 1024,
                                    "dtype": "fp16"}}


def test_is_sizes_spec():
    assert sizes.is_sizes_spec(SEED_001)
    assert not sizes.is_sizes_spec({"inputs": {"scaled": [[1, 2]]}})
    assert not sizes.is_sizes_spec([])


@pytest.mark.parametrize("name", SIZE_EXAMPLES)
def test_bundled_size_examples_are_all_ok(name):
    path = symattn.problem.examples.path(name)
    mapping = sizes.read_spec(str(path))
    assert mapping is not None
    report = sizes.check_spec(mapping, str(path))
    assert report.verdicts
    assert [v.position for v in report.verdicts if v.verdict != "ok"] == []
    assert report.title == symattn.problem.examples.describe(name)[0]


def test_bundled_001_claims_what_the_seed_prints():
    mapping = sizes.read_spec(str(symattn.problem.examples.path("001-score-matrix-memory")))
    claims = mapping["claims"]
    assert claims["score_elements"] == "33 554 432"
    assert claims["score_bytes"] == "64 MiB"
    assert claims["head_dim"] == "128"
    assert claims["W_O"] == "4096 x 4096"
    assert claims["T8192.score_elements"] == "2,147,483,648"
    assert mapping["sizes"]["T8192"] == {"seq_len": 8192}


def test_bundled_004_has_one_variant_per_model():
    mapping = sizes.read_spec(str(symattn.problem.examples.path("004-head-dimensions")))
    shapes = sizes.shapes_of_spec(mapping)
    assert {name: shape.head_dim for name, shape in shapes.items()} == \
        {"gpt-2": 64, "gpt-3": 128}
    assert (shapes["gpt-2"].d_model, shapes["gpt-2"].heads) == (768, 12)
    assert (shapes["gpt-3"].d_model, shapes["gpt-3"].heads) == (12288, 96)


def test_a_wrong_printed_value_is_wrong_with_a_reason():
    report = check({**SEED_001, "claims": {"score_elements": "33 554 433",
                                            "score_bytes": "64 MB", "head_dim": "64",
                                            "wo_share": "33%"}})
    got = verdicts(report)
    assert report.has_wrong
    assert got[("score_elements", "")].verdict == "wrong"
    assert "should be exactly 33,554,432" in got[("score_elements", "")].reason
    assert "off by one in the last digit" in got[("score_elements", "")].reason
    bytes_ = got[("score_bytes", "")]
    assert bytes_.verdict == "wrong" and bytes_.exact_rounded == "67 MB"
    assert "matches the value in MiB" in bytes_.reason
    assert got[("head_dim", "")].verdict == "wrong"
    assert got[("wo_share", "")].exact_rounded == "25%"


def test_rounded_printings_are_judged_at_their_precision():
    report = check({**SEED_001, "claims": {
        "score_bytes": "67.1 MB", "score_bytes @ a": "67.11 MB", "score_bytes @ b": "67 MB",
        "score_bytes @ c": "0.0625 GiB", "score_bytes @ d": "0.06 GiB",
        "score_bytes @ e": "0.07 GB", "score_bytes @ f": "67.2 MB", "wo_share": "25.0%",
        "wo_share @ g": "0.25", "wo_share @ h": "1/4", "wo_share @ i": "1/3"}})
    got = {label: v.verdict for (_, label), v in verdicts(report).items()}
    assert got == {"": "ok", "a": "ok", "b": "ok", "c": "ok", "d": "ok", "e": "ok",
                   "f": "wrong", "g": "ok", "h": "ok", "i": "wrong"}


def test_memory_mistakes_are_explained():
    spec = {"sizes": {"d_model": 4096, "heads": 32, "seq_len": 4096, "kv_heads": 8,
                      "layers": 32}, "claims": {
        "kv_cache_bytes_per_token": "4 KiB",          # one layer: 128 KiB / 32
        "kv_cache_bytes": "2 GiB",                    # without GQA
        "score_bytes": "2 GiB",                       # fp32 instead of fp16 (1 GiB)
        "wo_share": "25%"}}                           # the share without GQA
    got = {position: v for (position, _), v in verdicts(check(spec)).items()}
    assert all(v.verdict == "wrong" for v in got.values())
    assert "the value for one layer" in got["kv_cache_bytes_per_token"].reason
    assert "without grouped-query attention" in got["kv_cache_bytes"].reason
    assert "the value in fp32" in got["score_bytes"].reason
    assert "without grouped-query attention" in got["wo_share"].reason


def test_shapes_are_claimable():
    spec = {"sizes": {"d_model": 4096, "heads": 32, "seq_len": 1024, "kv_heads": 8},
            "claims": {"W_O": "4096 × 4096", "W_K": "4096 x 1024", "W_K @ torch": "1024 x 4096",
                       "scores": "[1, 32, 1024, 1024]", "scores @ no batch": "(32, 1024, 1024)",
                       "K_heads": ["1", "8", "1024", "128"], "V_heads": "[1, 32, 1024, 128]"}}
    got = verdicts(check(spec))
    assert [v.verdict for v in got.values()] == ["ok"] * 6 + ["wrong"]
    assert "torch.nn.Linear" in got[("W_K", "torch")].reason
    assert "matches the shape of Q_heads" in got[("V_heads", "")].reason


def test_labelled_printings_that_clash_are_inconsistent():
    report = check({**SEED_001, "claims": {"score_bytes": "64 MiB",
                                            "score_bytes @ solutions": "32 MiB",
                                            "score_bytes @ decimal": "67 MB"}})
    got = verdicts(report)
    assert "inconsistent" in got[("score_bytes", "")].flags
    assert "inconsistent" in got[("score_bytes", "solutions")].flags
    decimal = got[("score_bytes", "decimal")]          # 64 MiB = 67.1 MB: no clash there
    assert decimal.reason.endswith("printed differently elsewhere: 32 MiB (solutions)")
    assert "67 MB (decimal)" not in got[("score_bytes", "")].reason


def test_ties_follow_the_rounding_rule():
    # 1 x 1 x 25^2 scores x 4 bytes = 2,500 bytes = 2.5 kB exactly
    spec = {"sizes": {"d_model": 1, "heads": 1, "seq_len": 25, "dtype": "fp32"},
            "claims": {"score_bytes": "3 kB"}}
    [up] = check(spec).verdicts
    assert (up.verdict, up.flags) == ("ok", ("tie",))
    [even] = check(spec, "half-even").verdicts
    assert (even.verdict, even.exact_rounded) == ("wrong", "2 kB")
    [even] = check({**spec, "options": {"rounding": "half-even"}}).verdicts
    assert even.verdict == "wrong"


def test_variants_inherit_and_override():
    spec = {"sizes": {"d_model": 4096, "heads": 32, "seq_len": 1024,
                      "T8192": {"seq_len": 8192}, "bf": {"dtype": "fp32"}},
            "claims": {"score_elements": "33 554 432",
                       "T8192.score_elements": "2,147,483,648",
                       "bf.score_bytes": "128 MiB", "T8192.score_bytes": "4 GiB"}}
    report = check(spec)
    assert [v.verdict for v in report.verdicts] == ["ok"] * 4
    assert [v.position for v in report.verdicts][1] == "T8192.score_elements"


@pytest.mark.parametrize("spec, message", [
    ({"sizes": {"d_model": 4096, "heads": 32}}, "missing seq_len"),
    ({"sizes": {"d_model": 4096, "heads": 32, "seq_len": 8, "head": 3}},
     "unknown field `head`; did you mean `heads`?"),
    ({"sizes": {"d_model": "4096", "heads": 32, "seq_len": 8}}, "d_model must be a whole number"),
    ({"sizes": {"d_model": 4096, "heads": 30, "seq_len": 8}}, "heads (30) must divide"),
    ({**SEED_001, "claims": {"score_byte": "1"}}, "did you mean `score_bytes`?"),
    ({**SEED_001, "claims": {"long.score_bytes": "1"}}, "no variant named `long`"),
    ({**SEED_001, "claims": {"embedding_params": "1"}}, "it needs vocab"),
    ({**SEED_001, "claims": {"wo_share": "about a quarter"}}, "not a printed size"),
    ({**SEED_001, "claims": {"W_O": "d_model x d_model"}}, "not a printed shape"),
    ({**SEED_001, "inputs": {}}, "either [inputs] (attention) or [sizes]"),
    ({**SEED_001, "options": {"mask": "causal"}}, "unknown option `mask`"),
    ({"sizes": {"a": {"d_model": 8, "heads": 2, "seq_len": 2}}, "claims": {"head_dim": "4"}},
     "name the variant: a.head_dim"),
    ({"sizes": {"a": {"d_model": 8, "heads": 2, "seq_len": 2, "b": {}}}}, "do not nest"),
])
def test_unusable_size_specs_are_input_errors(spec, message):
    with pytest.raises(InputError) as error:
        check(spec)
    assert message in str(error.value)
    assert "test.toml" in str(error.value)


# ------------------------------------------------------------------ `symattn sizes`
def test_sizes_text(capsys):
    status, out, err = run(capsys, "sizes", "--d-model", "4096", "--heads", "32",
                           "--seq-len", "1024", "--language", "en")
    assert status == 0, err
    out = out.replace("\xa0", " ")
    assert "each of width d_k = 128" in out
    assert "33,554,432" in out and "64 MiB" in out
    assert "[1, 32, 1024, 1024]" in out
    assert "fp32 128 MiB, fp16/bf16 64 MiB, fp8/int8 32 MiB" in out
    # 2 x 32 x 1024 x 1024: the formula in symbols, then with the numbers
    assert "N_S = B · h · T^2 = 1 · 32 · 1024^2" in out
    assert "kv_cache_bytes" not in out and "score_elements" not in out


def test_sizes_json_is_stable(capsys):
    status, out, err = run(capsys, "sizes", "--d-model", "4096", "--heads", "32",
                           "--seq-len", "4096", "--kv-heads", "8", "--layers", "32",
                           "--batch", "1", "--dtype", "fp16", "--format", "json")
    assert status == 0, err
    document = json.loads(out)
    assert set(document) == {"symattn", "schema_version", "shape", "tensors", "quantities",
                             "score_bytes_by_dtype"}
    assert document["shape"] == {"d_model": 4096, "heads": 32, "kv_heads": 8,
                                 "head_dim": 128, "seq_len": 4096, "batch": 1, "layers": 32,
                                 "d_ff": 16384, "vocab": None, "dtype": "fp16",
                                 "bytes_per_element": 2, "bias": False}
    for tensor in document["tensors"]:
        assert set(tensor) == {"name", "dims", "shape", "elements", "description"}
        assert len(tensor["dims"]) == len(tensor["shape"])
    quantities = {q["name"]: q for q in document["quantities"]}
    for q in quantities.values():
        assert set(q) == {"name", "kind", "exact", "value", "human", "formula",
                          "substituted", "description"}
    assert quantities["kv_cache_bytes_per_token"]["value"] == 131_072
    assert quantities["kv_cache_bytes_per_token"]["human"] == "128 KiB = ~131.07 kB"
    assert quantities["gqa_factor"]["value"] == 4
    assert quantities["wo_share"] == {**quantities["wo_share"], "exact": "2/5", "value": None,
                                      "human": "40%", "kind": "ratio"}
    assert quantities["score_elements"]["value"] == 32 * 4096 * 4096


def test_sizes_output_file(capsys, tmp_path):
    target = tmp_path / "sizes.json"
    status, out, err = run(capsys, "sizes", "--d-model", "768", "--heads", "12", "--seq-len",
                           "1024", "-f", "json", "-o", str(target))
    assert status == 0 and out == "", err
    assert json.loads(target.read_text())["shape"]["head_dim"] == 64


@pytest.mark.parametrize("argv, parts", [
    (["--d-model", "4096", "--heads", "30", "--seq-len", "8"], ["heads (30) must divide"]),
    (["--d-model", "4096", "--heads", "32", "--seq-len", "8", "--kv-heads", "5"],
     ["kv_heads (5) must divide heads (32)"]),
    (["--d-model", "abc", "--heads", "32", "--seq-len", "8"],
     ["--d-model must be a positive whole number, got 'abc'"]),
    (["--d-model", "4096", "--heads", "32", "--seq-len", "0"], ["--seq-len must be"]),
    (["--d-model", "4096", "--heads", "32", "--seq-len", "-5"], ["--seq-len must be"]),
    (["--d-model", "4096", "--heads", "32"], ["sizes needs --seq-len"]),
    ([], ["sizes needs --d-model, --heads, --seq-len"]),
    (["--d-model", "4096", "--heads", "32", "--seq-len", "8", "--dtype", "fp4"],
     ["unknown dtype 'fp4'"]),
    (["--d-model", "4096", "--heads", "32", "--seq-len", "8", "--format", "yaml"],
     ["--format must be one of text, json"]),
])
def test_sizes_bad_input_is_one_line_and_exit_2(capsys, argv, parts):
    status, out, err = run(capsys, "sizes", *argv)
    assert status == 2
    assert out == ""
    assert_one_line_error(err, *parts)


def test_help_lists_sizes(capsys):
    status, out, _ = run(capsys, "--help")
    assert status == 0 and "sizes" in out
    status, out, _ = run(capsys, "sizes", "--help")
    assert status == 0 and "--kv-heads" in out and "docs/sizes.md" in out


def test_plugin_imports_stay_light():
    code = ("import sys, symattn.cli.sizes, symattn.sizes; "
            "print(sorted(m for m in ('flint', 'sympy', 'mpmath', 'jinja2') if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            cwd=ROOT, check=True)
    assert result.stdout.strip() == "[]"


# ------------------------------------------------------------------ `symattn check`
def test_check_bundled_size_examples(capsys):
    argv = ["check"] + [a for name in SIZE_EXAMPLES for a in ("--example", name)]
    status, out, err = run(capsys, *argv, "--format", "json")
    assert status == 0, err
    document = json.loads(out)
    assert [r["source"] for r in document["reports"]] == [f"example {n}" for n in SIZE_EXAMPLES]
    for report in document["reports"]:
        assert report["summary"]["wrong"] == 0
        assert report["summary"]["ok"] == len(report["claims"]) > 0
        assert all(c["verdict"] == "ok" for c in report["claims"])


def test_check_size_spec_with_a_wrong_value_exits_1(capsys, tmp_path):
    text = (symattn.problem.examples.path("001-score-matrix-memory").read_text(encoding="utf-8")
            .replace('score_bytes = "64 MiB"', 'score_bytes = "64 MB"'))
    spec = tmp_path / "wrong.toml"
    spec.write_text(text, encoding="utf-8")
    status, out, err = run(capsys, "check", str(spec), "--language", "en")
    assert status == 1, err
    line = next(line for line in out.splitlines() if line.startswith("score_bytes "))
    assert "WRONG" in line and "67 MB" in line
    # the spec's own language (Czech) when no --language is given
    status, out, err = run(capsys, "check", str(spec))
    line = next(line for line in out.splitlines() if line.startswith("score_bytes "))
    assert status == 1 and "CHYBNÉ" in line and "67,108864" in line, err


def test_check_mixes_attention_and_size_specs_in_parallel(capsys):
    status, out, err = run(capsys, "check", "--example", "001-score-matrix-memory",
                           "--example", "004-softmax-row", "--example",
                           "004-head-dimensions", "--jobs", "2", "--format", "json")
    assert status == 1, err                        # 004-softmax-row prints a wrong 83.83 %
    titles = [r["source"] for r in json.loads(out)["reports"]]
    assert titles == ["example 001-score-matrix-memory", "example 004-softmax-row",
                      "example 004-head-dimensions"]


def test_check_bad_size_spec_is_one_line_exit_2(capsys, tmp_path):
    spec = tmp_path / "bad.toml"
    spec.write_text('[sizes]\nd_model = 4096\nheads = 30\nseq_len = 8\n', encoding="utf-8")
    status, out, err = run(capsys, "check", str(spec))
    assert status == 2
    assert_one_line_error(err, "bad.toml", "heads (30) must divide d_model (4096)")


def test_check_json_size_spec(capsys, tmp_path):
    spec = tmp_path / "sizes.json"
    spec.write_text(json.dumps({"sizes": {"d_model": 768, "heads": 12, "seq_len": 1024},
                                "claims": {"head_dim": "64", "wo_share": 0.25}}))
    status, out, err = run(capsys, "check", str(spec), "--format", "json")
    assert status == 0, err
    claims = json.loads(out)["reports"][0]["claims"]
    assert [(c["position"], c["verdict"]) for c in claims] == [("head_dim", "ok"),
                                                               ("wo_share", "ok")]
