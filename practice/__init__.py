"""Practice site: a small, self-contained target website for Venus RPA automations.

It is a standalone Django mini-project (settings module ``practice.settings``) that
shares nothing with ``venus_rpa`` and needs no database. Start it with
``python -m practice --host 127.0.0.1 --port 8001``.
"""
