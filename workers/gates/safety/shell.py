"""Shell and adb commands typed into a terminal or run directly (reference §2 SYS, DEL, INSTALL).

A command line is split into its segments (pipes, `;`, `&&`, newlines); each segment is judged
and the worst wins. Read-only commands are R1; known state changes are R3 in their category;
wiping a system or disabling its defences is R4; anything unrecognised fails closed at R3.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_SPLIT = re.compile(r"\|\||&&|[;|\n]")
_R4 = [
    ("SYS", re.compile(r"\brm\s+(?:-\w+\s+)*(?:--no-preserve-root\s+)?(?:-\w*[rR]\w*\s+)?(?:/|/\*|~|~/|\$home|/home|/etc|/usr|/var|"
                       r"/boot|/bin|/lib|c:\\\\?)\s*$|--no-preserve-root")),
    ("SYS", re.compile(r"\bmkfs(?:\.\w+)?\b|\bdd\b.*\bof=/dev/(?:sd|nvme|hd|disk|mmcblk|vd)|>\s*/dev/(?:sd|nvme|hd)[a-z]|"
                       r":\(\)\s*\{\s*:\|:&\s*\};:|\bformat\s+[a-z]:|\bwipefs\b|\bdiskpart\b")),
    ("SEC", re.compile(r"\bufw\s+disable\b|\bsetenforce\s+0\b|\bsystemctl\s+(?:stop|disable|mask)\s+(?:firewalld|ufw|apparmor|auditd|"
                       r"fail2ban|iptables|nftables|clamav\S*)|\biptables\s+-F\b|\bnetsh\s+advfirewall\s+set\s+\w+\s+state\s+off|"
                       r"set-mppreference\s+.*-disable\w+\s+\$?(?:true|1)|\bsc\s+(?:stop|config)\s+windefend|\bspctl\s+--master-disable|"
                       r"\bcsrutil\s+disable|\bbcdedit\b.*\b(?:safeboot|testsigning|nointegritychecks|recoveryenabled|bootstatuspolicy)\b|"
                       r"\bvssadmin\s+delete\s+shadows\b|\bwbadmin\s+delete\b|\bmanage-bde\s+-off\b")),
]
_R3 = [
    ("INSTALL", re.compile(r"\b(?:curl|wget|iwr|invoke-webrequest)\b.*\|\s*(?:sudo\s+)?(?:ba|z|da)?sh\b|\biex\b|invoke-expression|"
                           r"\bmshta\b|certutil\s+-urlcache|\bbitsadmin\b|powershell\s+.*-e(?:nc|ncodedcommand)?\s|"
                           r"\b(?:apt(?:-get)?|yum|dnf|brew|pip3?|npm|pnpm|yarn|gem|cargo|choco|winget|snap|pacman|apk)\s+"
                           r"(?:install|add|i|-S)\b|\b(?:adb|pm)\s+install\b")),
    ("DEL", re.compile(r"\brm\b|\brmdir\b|remove-item\b|\bdel\s+/|\brd\s+/s\b|\bdrop\s+(?:table|database|schema|index|user)\b|"
                       r"\btruncate\b|\bdelete\s+from\b|\bgit\s+push\b.*(?:--force|\s-f\b)|\bgit\s+reset\s+--hard\b|"
                       r"\bgit\s+clean\s+-\w*f|\bgit\s+branch\s+-D\b|\bkubectl\s+delete\b|\bterraform\s+destroy\b|"
                       r"\bdocker\s+(?:rm|rmi|system\s+prune|volume\s+rm)\b|\bpm\s+(?:clear|uninstall)\b|\badb\s+uninstall\b|"
                       r"\bshred\b|\breg\s+delete\b|\bfind\b.*\s-delete\b")),
    ("SEC", re.compile(r"\b(?:usermod|useradd|userdel|passwd|chpasswd|visudo|ssh-copy-id)\b|authorized_keys")),
    ("SEND", re.compile(r"\bgit\s+push\b|\bnpm\s+publish\b|\btwine\s+upload\b|\b(?:mail|sendmail|mutt)\b")),
    ("SYS", re.compile(r"\bsudo\b|\bsu\b|\bsystemctl\s+(?:stop|restart|disable|mask|kill|start|enable)\b|\bservice\s+\S+\s+(?:stop|restart)|"
                       r"\b(?:reboot|shutdown|poweroff|halt)\b|\binit\s+[06]\b|\bkill(?:all)?\s|\bpkill\b|\bchmod\s+-R\b|\bchown\s+-R\b|"
                       r"\bcrontab\s+-r\b|\b(?:apt(?:-get)?|yum|dnf)\s+(?:remove|purge|autoremove)\b|\b(?:u?mount)\b|"
                       r"\badb\s+(?:shell|reboot|root|remount)\b|\bsetprop\b|\bsettings\s+put\b|\bstop-computer\b|\brestart-computer\b")),
]
_READ_ONLY = re.compile(
    r"^(?:ls|ll|dir|cat|type|pwd|cd|echo|head|tail|less|more|grep|rg|egrep|wc|sort|uniq|cut|awk|sed -n|tree|find|which|where|"
    r"whoami|id|hostname|uname|date|uptime|df|du|free|ps|top|htop|env|printenv|history|clear|cls|man|help|file|stat|"
    r"python3? --version|node -v|node --version|java -version|ping|nslookup|dig|ip a|ifconfig|ipconfig|"
    r"git (?:status|log|diff|show|branch|fetch|remote|blame|config --get)|adb (?:devices|version|get-state|get-serialno)|kubectl (?:get|describe|logs)|docker (?:ps|images|logs)|"
    r"systemctl status|journalctl|get-\w+|select-string|apt(?:-get)? (?:list|show|search|policy)|apt-cache|dpkg -l)\b")


@dataclass(frozen=True)
class ShellJudgement:
    category: str  # "NONE" for read-only commands, "SYS" for unrecognised ones
    level: int
    segment: str
    known: bool = True  # False when nothing recognised the command (fail closed)


def judge_command(command: str) -> ShellJudgement | None:
    """The worst segment of a command line; None for an empty line."""
    line = command.strip()
    for prefix in ("adb shell ", "$ ", "# ", "> "):
        if line.lower().startswith(prefix):
            line = line[len(prefix):]
    if not line:
        return None
    worst: ShellJudgement | None = None
    for segment in (s.strip() for s in _SPLIT.split(line)):
        if not segment:
            continue
        j = _judge_segment(segment)
        if worst is None or j.level > worst.level:
            worst = j
    if worst is None:
        return None
    # R4 patterns can span segments (curl ... | sh, a fork bomb): check the whole line too.
    whole = _judge_segment(line.lower())
    return whole if whole.level > worst.level or (whole.level == worst.level == 3 and whole.category == "INSTALL") else worst


_INSPECT_ONLY = re.compile(r"(?:^|\s)(?:--help|--version|--dry-run|-whatif)(?:\s|$)|^man\s")


def _judge_segment(segment: str) -> ShellJudgement:
    low = segment.lower()
    if _INSPECT_ONLY.search(low) and not any(rx.search(low) for _, rx in _R4):
        return ShellJudgement("NONE", 1, segment)  # `rm --help`, `git push --dry-run --force`: prints, changes nothing
    for category, rx in _R4:
        if rx.search(low):
            return ShellJudgement(category, 4, segment)
    for category, rx in _R3:
        if rx.search(low):
            return ShellJudgement(category, 3, segment)
    if _READ_ONLY.match(low):
        return ShellJudgement("NONE", 1, segment)
    return ShellJudgement("SYS", 3, segment, known=False)
