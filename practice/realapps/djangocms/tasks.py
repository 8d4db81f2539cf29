"""Everyday django CMS tasks, written by a business user from what is on screen (screenshots of
django CMS 3.11's admin behind django-two-factor-auth's sign-in; the tooltips of the page tree's
icons as a mouse shows them). See FIRST_TRY.md for how each ran on the first try.

Every task signs in with the one-time code of the moment: `{{credentials.realapp-djangocms.totp}}`
holds the TOTP secret and types the current code.
"""

from __future__ import annotations

LOGIN = "{{credentials.realapp-djangocms.%s}}"


def sign_in() -> list[dict]:
    return [
        {"kind": "fill", "target": "Username", "value": LOGIN % "username"},
        {"kind": "fill", "target": "Password", "value": LOGIN % "password"},
        {"kind": "click", "name": "Next: the one-time code", "target": "Next"},
        {"kind": "fill", "name": "Type the one-time code", "target": "Token", "value": LOGIN % "totp"},
        {"kind": "click", "name": "Next: signed in", "target": "Next"},
        {"kind": "wait_for", "text": "Site administration"},
    ]


def _signed_in(server) -> bool:
    return server.signed_in_with_code()


def _created(server) -> bool:
    page = server.pages().get("Summer team day")
    return page is not None and page["slug"] == "summer-team-day"


def _edited(server) -> bool:
    pages = server.pages()
    return "About us" not in pages and pages.get("About our team", {}).get("description") == \
        "Who we are and how to reach us."


def _published(server) -> bool:
    return server.pages()["Spring sale"]["published"]


def _still_unpublished(server) -> bool:
    return not server.pages()["Spring sale"]["published"]


def _user_deleted(server) -> bool:
    return server.users() == ["admin"]


def _user_kept(server) -> bool:
    return server.users() == ["admin", "temp-editor"]


TASKS = [
    {"name": "djangocms-sign-in", "kind": "sign_in", "params": {}, "consequential": 0, "commit_steps": [],
     "check": _signed_in,
     "definition": {"start_url": "/admin/", "steps": sign_in(),
                    "success_criteria": {"text_visible": "Site administration"}}},
    {"name": "djangocms-create-page", "kind": "create_edit", "consequential": 0, "commit_steps": [],
     "check": _created, "params": {"title": "Summer team day"},
     "definition": {"start_url": "/admin/", "steps": [
         *sign_in(),
         {"kind": "click", "target": "Pages"},
         {"kind": "click", "target": "New Page"},
         {"kind": "fill", "target": "Title", "value": "{{title}}"},
         {"kind": "click", "target": "Save"},
     ]}},
    {"name": "djangocms-edit-page", "kind": "create_edit", "consequential": 0, "commit_steps": [],
     "check": _edited, "params": {"title": "About our team", "description": "Who we are and how to reach us."},
     "definition": {"start_url": "/admin/", "steps": [
         *sign_in(),
         {"kind": "click", "target": "Pages"},
         {"kind": "click", "name": "Open the page's settings", "target": {"text": "Page settings", "near": "About us"}},
         {"kind": "fill", "target": "Title", "value": "{{title}}"},
         {"kind": "fill", "target": "Description meta tag", "value": "{{description}}"},
         {"kind": "click", "target": "Save"},
     ]}},
    {"name": "djangocms-publish-page", "kind": "consequential", "consequential": 1,
     "commit_steps": ["Publish the page"], "check": _published, "check_unchanged": _still_unpublished,
     "params": {},
     "definition": {"start_url": "/admin/", "steps": [
         *sign_in(),
         {"kind": "click", "target": "Pages"},
         {"kind": "click", "name": "Open the publishing menu",
          "target": {"text": "unpublished", "near": "Spring sale"}},
         {"kind": "click", "name": "Publish the page", "target": "Publish"},
     ]}},
    {"name": "djangocms-delete-user", "kind": "consequential", "consequential": 1,
     "commit_steps": ["Confirm the deletion"], "check": _user_deleted, "check_unchanged": _user_kept,
     "params": {},
     "definition": {"start_url": "/admin/", "steps": [
         *sign_in(),
         {"kind": "click", "target": "Users"},
         {"kind": "click", "target": "temp-editor"},
         {"kind": "click", "target": "Delete"},
         {"kind": "click", "name": "Confirm the deletion", "target": "Yes, I'm sure"},
     ]}},
]
