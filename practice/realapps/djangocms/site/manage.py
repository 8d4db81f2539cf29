#!/usr/bin/env python
"""The django CMS test site's manage.py; run it with the site's own virtualenv, never ours."""

import os
import sys

if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cmssite.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)
