"""Exercise sheets with answer keys, as data: seeded nice numbers (``numbers``),
the exercise kinds (``kinds``, ``whatif``, ``mistakes``) built on the exercise
records (``model``), and a class set (``sheet``).
"""
