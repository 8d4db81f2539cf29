"""Everyday Roundup tasks, written by a business user from what is on screen (screenshots of the
classic template; see practice/realapps/FIRST_TRY.md). The sidebar's "Login" box shows two
fields without labels: the user calls them what they are for, "Username" and "Password"."""

from __future__ import annotations

LOGIN = "{{credentials.realapp-roundup.%s}}"


def sign_in() -> list[dict]:
    return [
        {"kind": "fill", "target": "Username", "value": LOGIN % "username"},
        {"kind": "fill", "target": "Password", "value": LOGIN % "password"},
        {"kind": "click", "name": "Log in", "target": {"role": "button", "name": "Login"}},
        {"kind": "wait_for", "text": "Hello, admin"},
    ]


def _signed_in(server) -> bool:
    return server.username in server.signed_in()


def _created(server) -> bool:
    issue = server.issues().get("Badge reader at the back door is offline")
    return bool(issue) and issue["priority"] == "urgent" and issue["messages"] == 1


def _status_changed(server) -> bool:
    issue = server.issues()["Printer on floor 2 jams"]
    return issue["status"] == "resolved" and issue["messages"] == 1


def _retired(server) -> bool:
    return "bob" not in server.users() and "alice" in server.users()


def _kept(server) -> bool:
    return {"alice", "bob"} <= set(server.users())


TASKS = [
    {"name": "roundup-sign-in", "kind": "sign_in", "params": {}, "consequential": 0, "check": _signed_in,
     "definition": {"start_url": "/", "steps": sign_in()}},
    {"name": "roundup-create-issue", "kind": "create_edit", "consequential": 0, "check": _created,
     "params": {"title": "Badge reader at the back door is offline"},
     "definition": {"start_url": "/", "steps": [
         *sign_in(),
         {"kind": "click", "target": {"text": "Create New", "within": "Issues"}},
         {"kind": "fill", "target": "Title", "value": "{{title}}"},
         {"kind": "select", "target": "Priority", "option": "urgent"},
         {"kind": "fill", "target": "Change Note", "value": "Nobody can get in from the car park."},
         {"kind": "click", "target": "Submit New Entry"},
         {"kind": "wait_for", "text": "{{title}}"},
     ]}},
    {"name": "roundup-change-status", "kind": "create_edit", "consequential": 0, "check": _status_changed,
     "params": {},
     "definition": {"start_url": "/", "steps": [
         *sign_in(),
         {"kind": "click", "target": "Printer on floor 2 jams"},
         {"kind": "select", "target": "Status", "option": "resolved"},
         {"kind": "fill", "target": "Change Note", "value": "New fuser unit fitted."},
         {"kind": "click", "target": "Submit Changes"},
         {"kind": "wait_for", "text": "edited ok"},
     ]}},
    {"name": "roundup-retire-user", "kind": "consequential", "consequential": 1, "params": {}, "commit_steps": ["Retire bob"],
     "check": _retired, "check_unchanged": _kept,
     "definition": {"start_url": "/", "steps": [
         *sign_in(),
         {"kind": "click", "target": "User List"},
         {"kind": "click", "name": "Retire bob", "target": {"text": "retire", "near": "bob"}},
         {"kind": "wait_for", "text": "has been retired"},
     ]}},
]
