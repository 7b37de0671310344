"""Spec text to a frozen, validated ``Problem``.

Spec files keep how each number was printed (``spec``); tables and matrices
are read with their locations (``tables``, ``layer_config``); the ``[options]``
table (``options``) names the modes of ``modes``; ``read`` turns a spec mapping
into the fields of the ``Problem`` record (``problem``), whose matrices
``shapes`` checks fit together; sizes are bounded (``limits``); bundled
examples live in ``examples``; ``keys`` lists every key a spec may hold.
"""
