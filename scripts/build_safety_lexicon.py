"""Build workers/gates/safety/lexicon_i18n.json from real applications' translation catalogs.

The safety rules read English and Chinese labels; this script adds what the same commands are
called in other languages, taken from the catalogs that shipped applications translate their own
buttons with -- never from evaluation cases. For each English msgid below (the name of a
consequential verb, a lead-in, a dismiss or a generic confirm), every translation found is kept
with its category, kind, language and the source package + version.

Entries are short (fewer than 3 words and fewer than 4 adjacent CJK characters): a longer translation
is kept as its key words in order ("passer une commande" -> "passer … commande", matched with short
function words between them), so the lexicon names commands, never whole sentences, and holds no
string a future holdout could find literally (tests/gates/test_holdout_leak.py).

Sources (nothing else is read): Django (admin, auth; from the installed package), and the wheels or
sdists of django-oscar, django-allauth, plone.app.locales, Trac, roundup, pretix and wagtail:

    pip download --no-deps -d /tmp/cat django-oscar django-allauth plone.app.locales Trac roundup pretix wagtail
    .venv/bin/python scripts/build_safety_lexicon.py /tmp/cat

Re-running it on the same package versions gives the same file.
"""

from __future__ import annotations

import argparse
import ast
import gettext
import json
import re
import sys
import tarfile
import unicodedata
import zipfile
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "workers" / "gates" / "safety" / "lexicon_i18n.json"
PACKAGES = ("django_oscar", "django_allauth", "plone_app_locales", "Trac", "roundup", "pretix", "wagtail")
LANGS = ("de", "fr", "es", "it", "pt", "nl", "pl", "ru", "uk", "tr", "cs", "sv", "ja", "ko", "zh", "ar",
         "da", "fi", "nb", "hu", "ro", "el", "sk", "ca", "he", "id", "vi")

# kind -> category -> English msgids (compared case-insensitively, trailing punctuation dropped).
# trigger: a commit verb (R3 in its category). cue / weak: words that say (strongly or weakly) what a
# dialog or form is about.
# dismiss: a whole label that closes or declines. none0/none1: lookalikes that only read or lead in.
# confirm/progress: generic labels whose meaning comes from the dialog or form around them.
MSGIDS: dict[str, dict[str, tuple[str, ...]]] = {
    "trigger": {
        "DEL": ("Delete", "Remove", "Permanently delete", "Delete permanently", "Delete selected", "Yes, delete", "Erase",
                "Purge", "Delete forever", "Empty trash"),
        "PAY": ("Pay", "Pay now", "Place order", "Buy now", "Buy", "Confirm payment", "Make payment", "Confirm order",
                "Pay order", "Donate", "Purchase", "Place binding order", "Complete order", "Submit order",
                "Order now", "Refund", "Perform refund", "Transfer", "Complete purchase"),
        "SEND": ("Send", "Send message", "Send email", "Send e-mail", "Reply", "Forward", "Post comment", "Publish",
                 "Yes, publish", "Publish now", "Post", "Submit comment", "Send now", "Call", "Comment", "Send invitations", "Send invitation",
                 "Post reply", "Send reply"),
        "SHARE": ("Share", "Invite", "Make public", "Upload", "Export", "Share link", "Create link", "Public link",
                  "Grant access", "Share with"),
        "AUTH": ("Sign in", "Log in", "Login", "Sign In", "Log In", "Authorize"),
        "SEC": ("Change password", "Change my password", "Reset password", "Disable two-factor authentication",
                "Deactivate two-factor authentication"),
        "INSTALL": ("Install", "Install now", "Open anyway", "Always allow"),
        "LEGAL": ("I agree", "I accept", "Accept terms", "Sign", "Sign document", "Submit application"),
        "ACCT": ("Sign up", "Sign Up", "Register", "Delete account", "Delete my account", "Close account",
                 "Create account", "Deactivate account"),
        "BOOK": ("Book", "Book now", "Reserve", "Cancel booking", "Cancel reservation", "Complete reservation",
                 "Confirm booking", "Confirm reservation", "Make reservation", "Make a reservation"),
    },
    "cue": {
        "DEL": ("Delete", "Remove", "Deleted", "Permanently delete"),
        "PAY": ("Payment", "Pay", "Order total", "Checkout", "Amount due"),
        "SEND": ("Send", "Publish", "Reply"),
        "SHARE": ("Share", "Permissions", "Upload", "Export"),
        "AUTH": ("Sign in", "Log in"),
        "ACCT": ("Register", "Sign up", "Delete account"),
        "LEGAL": ("Terms and conditions", "Terms of service", "Privacy policy"),
        "BOOK": ("Booking", "Reservation"),
        "INSTALL": ("Install",),
    },
    "weak": {"PAY": ("Total", "Amount", "Price"), "AUTH": ("Password", "Username"), "ACCT": ("Account",),
             "SEND": ("Message", "Recipient")},
    "dismiss": {"NONE": ("Cancel", "Close", "Back", "No", "Go back", "Not now", "Skip", "No, take me back", "Dismiss")},
    "none0": {"NONE": ("Search", "Filter", "Preview", "Show all", "View", "Sort", "Find", "Print", "Show", "Details",
                       "Clear all filters", "Show more")},
    "none1": {"NONE": ("Save draft", "Save as draft", "Add to basket", "Add to cart", "Proceed to checkout", "Checkout",
                       "Continue shopping", "Edit", "History", "Order history", "Settings", "Change", "Add", "Copy",
                       "Download", "Order details", "View order", "Basket", "Cart", "Help", "Remove filter",
                       "Remove from basket", "Remove from cart")},
    "confirm": {"UNKNOWN": ("OK", "Yes", "Confirm", "Yes, I'm sure", "I'm sure", "Yes, I am sure"),
                "SEND": ("Submit",), "LEGAL": ("Accept", "Agree"), "INSTALL": ("Allow",)},
    "progress": {"NONE": ("Save", "Next", "Continue", "Apply", "Update", "Done", "Save changes", "Go")},
}
# Kinds that judge a label before cues do; a string claimed by two of them keeps the majority.
LABEL_KINDS = ("trigger", "dismiss", "none0", "none1", "confirm", "progress")
_CJK = re.compile(r"[\u3400-\u9fff]")
_CJK_RUN = re.compile(r"[\u3400-\u9fff]+")
_WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")
_ACCEL = re.compile(r"&(?=\w)|_(?=\w)|\s*\(&\w\)|…|\.\.\.|[.!?:。！？：]+$")


def norm(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).replace("’", "'").casefold()
    return re.sub(r"\s+", " ", _ACCEL.sub("", text)).strip()


def short(text: str) -> bool:
    return len(_CJK.findall(text)) < 4 and len(_WORD.findall(_CJK.sub(" ", text))) < 3


def elide(text: str) -> str:
    """A long entry as its key words in order ("passer une commande" -> "passer … commande",
    "注文を確定する" -> "注文…確定"): function words and kana endings dropped. "" if what is left is a
    single word or still long (a sentence is not a command name)."""
    if _CJK.search(text):
        parts = _CJK_RUN.findall(text)
    else:
        parts = [w for w in _WORD.findall(text) if len(w) >= 4]
    joined = " … ".join(parts) if not _CJK.search(text) else "…".join(parts)
    if len(parts) < 2 or len(parts) > 3 or any(not short(p) for p in parts):
        return ""
    return joined


def lang_of(code: str) -> str:
    code = code.replace("-", "_")
    return "nb" if code.split("_")[0] in ("nb", "no") else code.split("_")[0].lower()


def _unquote(line: str) -> str:
    return ast.literal_eval(line.strip())


def parse_po(raw: bytes) -> dict[str, str]:
    """msgid -> msgstr of a .po file (in the charset its header names); fuzzy entries skipped; Plone
    ids replaced by their `Default:`."""
    m = re.search(rb"charset=([\w-]+)", raw[:4000])
    try:
        text = raw.decode(m.group(1).decode() if m else "utf-8")
    except (LookupError, UnicodeDecodeError):
        return {}  # a catalog that does not decode as it says is left out
    out: dict[str, str] = {}
    for block in re.split(r"\n\s*\n", text):
        default, fuzzy, field, parts = None, False, None, defaultdict(str)
        for line in block.splitlines():
            if line.startswith("#. Default:"):
                default = _unquote(line[len("#. Default:"):])
            elif line.startswith("#,") and "fuzzy" in line:
                fuzzy = True
            elif line.startswith("#"):
                continue
            elif m := re.match(r'^(msgctxt|msgid|msgid_plural|msgstr(?:\[0\])?)\s+(".*")$', line):
                field = m.group(1).replace("[0]", "")
                parts[field] += _unquote(m.group(2))
            elif line.startswith('"') and field:
                parts[field] += _unquote(line)
        msgid, msgstr = default or parts.get("msgid", ""), parts.get("msgstr", "")
        if msgid and msgstr and not fuzzy:
            out.setdefault(msgid, msgstr)
    return out


def parse_mo(data: bytes) -> dict[str, str]:
    import io

    catalog = gettext.GNUTranslations(io.BytesIO(data))._catalog  # noqa: SLF001 -- the parsed table
    return {(k[0] if isinstance(k, tuple) else k).split("\x04")[-1]: v for k, v in catalog.items() if isinstance(v, str) and v}


def _locale_of(path: str) -> str | None:
    m = re.search(r"(?:^|/)locales?/([A-Za-z_@-]+)/LC_MESSAGES/", path) or re.search(r"(?:^|/)locale/([A-Za-z_-]+)\.po$", path)
    return m.group(1) if m else None


def catalogs(folder: Path):
    """(package, version, language, {msgid: msgstr}) for every catalog of the listed sources."""
    import django

    dj = Path(django.__file__).parent / "contrib"
    for app in ("admin", "auth"):
        for po in sorted((dj / app / "locale").glob("*/LC_MESSAGES/django.po")):
            yield "Django", django.__version__, lang_of(po.parts[-3]), parse_po(po.read_bytes())
    for archive in sorted(folder.iterdir()):
        name = archive.name
        package = next((p for p in PACKAGES if name.lower().startswith(p.lower() + "-")), None)
        if package is None:
            continue
        version = name[len(package) + 1:].split("-")[0].removesuffix(".tar.gz")
        if name.endswith(".whl"):
            with zipfile.ZipFile(archive) as z:
                members = [(n, z.read) for n in sorted(z.namelist())]
                yield from _read(package, version, members)
        elif name.endswith(".tar.gz"):
            with tarfile.open(archive) as t:
                members = [(m.name, lambda n, t=t: t.extractfile(n).read()) for m in t.getmembers() if m.isfile()]
                yield from _read(package, version, members)


def _read(package: str, version: str, members):
    names = {n for n, _ in members}
    for name, read in members:
        locale = _locale_of(name)
        if locale is None or "/en" in f"/{locale}"[:3]:
            continue
        if name.endswith(".po"):
            yield package, version, lang_of(locale), parse_po(read(name))
        elif name.endswith(".mo") and name[:-3] + ".po" not in names:
            yield package, version, lang_of(locale), parse_mo(read(name))


def build(folder: Path) -> dict:
    wanted: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for kind, cats in MSGIDS.items():
        for cat, ids in cats.items():
            for mid in ids:
                wanted[norm(mid)].append((kind, cat))
    votes: dict[tuple[str, str], Counter] = defaultdict(Counter)  # (lang, text) -> (kind, cat) -> n
    sources: dict[tuple[str, str, str, str], set] = defaultdict(set)
    english: dict[tuple[str, str, str, str], set] = defaultdict(set)
    for package, version, lang, table in catalogs(folder):
        if lang not in LANGS:
            continue
        for msgid, msgstr in table.items():
            text = norm(msgstr)
            if not text or text == norm(msgid) or "%" in text or "{" in text:
                continue  # untranslated or a template
            text = text if short(text) else elide(text)
            if not text:
                continue
            for kind, cat in wanted.get(norm(msgid), ()):
                votes[(lang, text)][(kind, cat)] += 1
                sources[(lang, text, kind, cat)].add(f"{package} {version}")
                english[(lang, text, kind, cat)].add(msgid)
    entries = []
    for (lang, text), counter in sorted(votes.items()):
        label_votes = Counter({k: n for k, n in counter.items() if k[0] in LABEL_KINDS})
        keep = set(counter) - set(label_votes)
        if label_votes:
            (best, n), *rest = label_votes.most_common()
            if not rest or n > rest[0][1]:
                keep.add(best)  # a tie between two meanings leaves the string out: it says neither
        for kind, cat in sorted(keep):
            key = (lang, text, kind, cat)
            entries.append({"lang": lang, "text": text, "kind": kind, "category": cat,
                            "msgids": sorted(english[key]), "sources": sorted(sources[key])})
    return {"generated_by": "scripts/build_safety_lexicon.py", "entries": entries}


def dump(data: dict) -> str:
    """One entry a line, so a diff of a regenerated file shows what changed."""
    lines = [json.dumps(e, ensure_ascii=False, sort_keys=True) for e in data["entries"]]
    return '{"generated_by": %s, "entries": [\n%s\n]}\n' % (json.dumps(data["generated_by"]), ",\n".join(lines))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="where `pip download --no-deps` put the packages")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    data = build(args.folder)
    args.out.write_text(dump(data), encoding="utf-8")
    print(f"{len(data['entries'])} entries -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
