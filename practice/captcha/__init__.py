"""Practice CAPTCHAs: one widget per VenusBench-CAPTCHA type.

Layout:

* ``generators/``: Django-free challenge generators (Pillow only), one module per type,
  each with ``generate(rng)``, ``verify(solution, answer)`` and ``expected_answer(solution)``.
* ``store.py``: the in-memory, thread-safe, expiring, single-use challenge store.
* ``service.py``: issue and verify challenges, build the template context of a widget.
* ``views.py``: image, check, refresh, standalone page and the opt-in test hook.

The answer never leaves the server, except through the test hook
(``GET /api/captcha/<id>``), which exists only when ``PRACTICE_TEST_HOOKS=1``.
"""
