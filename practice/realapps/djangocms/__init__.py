"""django CMS 3.11 (with django-two-factor-auth) as a real third-party test target; see app.py."""
