"""Sizes of a Transformer layer: tensor shapes, parameter counts, memory.

Pure integer arithmetic (``fractions.Fraction`` where a ratio is needed): no
binary float decides anything, and nothing heavy is imported at module level.
``compute(ModelShape(...))`` lists every tensor's shape and every named
quantity; ``check_spec`` judges the sizes a document printed (a spec with a
``[sizes]`` table instead of ``[inputs]``; see docs/sizes.md).

The modules, in pipeline order: ``shape`` (ModelShape, dtypes), ``printing``
(how sizes are written), ``records`` (Tensor, Quantity, Sizes),
``quantities`` (compute), ``printed`` (reading printed sizes), ``spec``
(reading a size spec), ``mistakes`` and ``judge`` (verdicts), ``check``
(check_spec).

Seed 001's exercise: d_model 4096, 32 heads, a 1024-token sequence, fp16.

>>> sizes = compute(ModelShape(d_model=4096, heads=32, seq_len=1024))
>>> sizes["head_dim"], sizes["score_elements"], format_bytes(sizes["score_bytes"])
(128, 33554432, '64 MiB')
>>> sizes["wo_share"], sizes.tensor("scores").sizes
(Fraction(1, 4), (1, 32, 1024, 1024))

Grouped-query attention: 8 K/V heads shrink the KV cache fourfold.

>>> gqa = compute(ModelShape(4096, 32, 4096, kv_heads=8, layers=32))
>>> format_bytes(gqa["kv_cache_bytes_per_token"]), gqa["gqa_factor"]
('128 KiB', 4)
>>> format_bytes(gqa["kv_cache_bytes"]), format_bytes(gqa["kv_cache_bytes_saved"])
('512 MiB', '1.5 GiB')
"""

from __future__ import annotations

__all__ = ["DTYPE_BYTES", "ModelShape", "Tensor", "Quantity", "Sizes", "compute",
           "format_bytes", "format_bytes_decimal", "format_count", "format_ratio",
           "group_digits", "SizePrinted", "read_size_printed", "is_sizes_spec",
           "shapes_of_spec", "check_spec", "read_spec", "load_any", "QUANTITY_NAMES"]

from symattn.sizes.check import check_spec
from symattn.sizes.printed import SizePrinted, read_size_printed
from symattn.sizes.printing import (format_bytes, format_bytes_decimal, format_count,
                                    format_ratio, group_digits)
from symattn.sizes.quantities import QUANTITY_NAMES, compute
from symattn.sizes.records import Quantity, Sizes, Tensor
from symattn.sizes.shape import DTYPE_BYTES, ModelShape
from symattn.sizes.spec import is_sizes_spec, load_any, read_spec, shapes_of_spec
