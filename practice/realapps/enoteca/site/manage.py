"""Django's command-line tool for the wine shop's back office (practice/realapps/enoteca)."""

import os
import sys

if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "enoteca_site.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)
