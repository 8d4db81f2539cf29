"""Everyday Trac tasks, written by a business user from the labels on screen (screenshots of
Trac 1.6 with TracAccountManager's login form; see practice/realapps/FIRST_TRY.md)."""

from __future__ import annotations

LOGIN = "{{credentials.realapp-trac.%s}}"


def sign_in() -> list[dict]:
    return [
        {"kind": "click", "name": "Open the login page", "target": "Login"},
        {"kind": "fill", "target": "Username", "value": LOGIN % "username"},
        {"kind": "fill", "target": "Password", "value": LOGIN % "password"},
        {"kind": "click", "name": "Log in", "target": {"role": "button", "name": "Login"}},
        {"kind": "wait_for", "text": "logged in as"},
    ]


def _signed_in(server) -> bool:
    return bool(server.query("SELECT 1 FROM auth_cookie WHERE name = ?", server.username))


def _created(server) -> bool:
    return any(t["summary"] == "Projector in room 4 flickers" and (t["type"], t["priority"], t["milestone"])
               == ("enhancement", "critical", "Spring release") for t in server.tickets().values())


def _edited(server) -> bool:
    return server.tickets()[1]["priority"] == "blocker" and "Vendor called, part ordered." in server.comments(1)


def _ticket_deleted(server) -> bool:
    return 2 not in server.tickets() and 1 in server.tickets()


def _ticket_kept(server) -> bool:
    return set(server.tickets()) == {1, 2}


def _milestone_removed(server) -> bool:
    return server.milestones() == ["Spring release"]


def _milestones_kept(server) -> bool:
    return server.milestones() == ["Obsolete sprint", "Spring release"]


TASKS = [
    {"name": "trac-sign-in", "kind": "sign_in", "params": {}, "consequential": 0, "check": _signed_in,
     "definition": {"start_url": "/", "steps": sign_in()}},
    {"name": "trac-create-ticket", "kind": "create_edit", "consequential": 0, "check": _created,
     "params": {"summary": "Projector in room 4 flickers"},
     "definition": {"start_url": "/", "steps": [
         *sign_in(),
         {"kind": "click", "target": "New Ticket"},
         {"kind": "fill", "target": "Summary", "value": "{{summary}}"},
         {"kind": "fill", "target": "Description", "value": "The image flickers every few seconds."},
         {"kind": "select", "target": "Type", "option": "enhancement"},
         {"kind": "select", "target": "Milestone", "option": "Spring release"},
         {"kind": "select", "target": "Priority", "option": "critical"},
         {"kind": "click", "target": "Create ticket"},
         {"kind": "wait_for", "text": "{{summary}}"},
     ]}},
    {"name": "trac-edit-ticket", "kind": "create_edit", "consequential": 0, "check": _edited,
     "params": {"comment": "Vendor called, part ordered."},
     "definition": {"start_url": "/", "steps": [
         *sign_in(),
         {"kind": "goto", "url": "/ticket/1"},
         {"kind": "click", "target": "Modify Ticket"},
         {"kind": "select", "target": "Priority", "option": "blocker"},
         {"kind": "fill", "target": "Add Comment", "value": "{{comment}}"},
         {"kind": "click", "target": "Submit changes"},
         {"kind": "wait_for", "text": "{{comment}}"},
     ]}},
    {"name": "trac-delete-ticket", "kind": "consequential", "consequential": 1, "params": {}, "commit_steps": ["Delete the ticket"],
     "check": _ticket_deleted, "check_unchanged": _ticket_kept,
     "definition": {"start_url": "/", "steps": [
         *sign_in(),
         {"kind": "goto", "url": "/ticket/2"},
         {"kind": "click", "target": "Delete"},
         {"kind": "click", "name": "Delete the ticket", "target": "Delete ticket"},
         {"kind": "wait_for", "text": "and all associated data removed"},
     ]}},
    {"name": "trac-remove-milestone", "kind": "consequential", "consequential": 1, "params": {}, "commit_steps": ["Remove the milestone"],
     "check": _milestone_removed, "check_unchanged": _milestones_kept,
     "definition": {"start_url": "/", "steps": [
         *sign_in(),
         {"kind": "click", "target": "Admin"},
         {"kind": "click", "target": "Milestones"},
         {"kind": "check", "target": {"role": "checkbox", "near": "Obsolete sprint"}},
         {"kind": "click", "name": "Remove the milestone", "target": "Remove selected items"},
         {"kind": "wait_for", "text": "The selected milestones have been removed."},
     ]}},
]
