"""Fit the lone-picture rotation gate (`workers/captcha/models/rotation_gate.json`, read by
`workers/captcha/local.py:rotation_threshold`) on photographs nobody here took or drew.

The lone-picture reader (`workers/captcha/solvers/rotation.py`, "priors") was designed on our own
synthetic landscapes, where it is right nearly always; a photograph is another matter. Its
confidence says how strongly its cues agree, not how often it is right. This script measures
that on photographs: the ones with an up direction (landscapes, plants, rooms, water; not the
abstract art beside them) in four Debian wallpaper packages (from three source packages), fetched
with `apt-get download` at pinned versions (a package registry; nothing else is fetched), each
photograph checked by its sha256. Each photograph gives `--crops`
square crops (half to nine tenths of its shorter side, 200 px), each turned counter-clockwise by
a random angle and saved as a JPEG, as a rotation CAPTCHA shows a picture; the reader's answer is
right within TOLERANCE degrees of the turn that undoes it.

The rule is the text gate's (scripts/gate_rule.py): the local route should pass at
least 98% of the challenges it answers within its tries, so for N tries the lowest threshold
whose kept answers are right at least 1 - 0.02^(1/N) of the time (72.9% for the default 3),
keeping at least 10% of the answers; where none does, the route hands every lone picture on (to
the model or a person) with that many tries. These photographs are not in any benchmark; the
third-party rotation split (benchmarks/_rotation_third_party.py) is never used here.

    python -m scripts.calibrate_rotation [--crops 24] [--cache .local/rotation-photos]
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import random
import subprocess
import tempfile
from pathlib import Path

from PIL import Image

from scripts.gate_rule import CANDIDATES, MAX_TRIES, choose_threshold
from workers.captcha.local import lone_reader_sha256
from workers.captcha.solvers import rotation
from workers.captcha.solvers._image import SolverInputError

ROOT = Path(__file__).resolve().parent.parent
GATE_PATH = ROOT / "workers" / "captcha" / "models" / "rotation_gate.json"
PACKAGES = {  # Debian 12 (bookworm), all architecture-independent
    "lomiri-wallpapers-16.04": "20.04.0-2",
    "lomiri-wallpapers-20.04": "20.04.0-2",
    "mate-backgrounds": "1.26.0-1",
    "plasma-workspace-wallpapers": "4:5.27.5-2",
}
PHOTOS = {  # the photographs with an up direction in those packages (chosen by looking at them): sha256, first 16
    "usr/share/backgrounds/Picture_1A_by_freespace.jpg": "89e86af38d04daae",
    "usr/share/backgrounds/Wine_by_Jakkub_Mede.jpg": "d2e96e6d4da40dd8",
    "usr/share/backgrounds/seeding_by_Clements_Engelhardt.jpg": "a5634d1ab5e41a35",
    "usr/share/backgrounds/aitzgorri_by_Aitzol_Berasategi.jpg": "66268e7b48f8854d",
    "usr/share/backgrounds/Kleiber_by_Lukas_Baubkus.jpg": "6572410c09f4492c",
    "usr/share/backgrounds/Dragonfly_by_Bolly.jpg": "af5af17841009732",
    "usr/share/backgrounds/friends_by_Aitzol_Berasategi.jpg": "cc40e313c74e421e",
    "usr/share/backgrounds/sunset_by_Aitzol_Berasategi.jpg": "474dab6a4b9f94dc",
    "usr/share/backgrounds/free_by_Peter_Nerlich.jpg": "85a5453c2fed514c",
    "usr/share/backgrounds/picosdeeuropa_by_Aitzol_Berasategi.jpg": "414d0072b2f6f2c5",
    "usr/share/backgrounds/life_by_Aitzol_Berasategi.jpg": "4c119350ead80201",
    "usr/share/backgrounds/mate/nature/Garden.jpg": "d3095ee09d425ef2",
    "usr/share/backgrounds/mate/nature/Dune.jpg": "8a67c2cb0be8c46b",
    "usr/share/backgrounds/mate/nature/TwoWings.jpg": "665e5abf8a539907",
    "usr/share/backgrounds/mate/nature/Storm.jpg": "77ca53077831d323",
    "usr/share/backgrounds/mate/nature/RainDrops.jpg": "3e4ea9671c28c90a",
    "usr/share/backgrounds/mate/nature/LadyBird.jpg": "e35a9a4126ef969c",
    "usr/share/backgrounds/mate/nature/YellowFlower.jpg": "254da96256acb7ad",
    "usr/share/wallpapers/FallenLeaf/contents/images/2560x1600.jpg": "95603a6560c7e8d5",
    "usr/share/wallpapers/Path/contents/images/2560x1600.jpg": "7477457d7f17b736",
    "usr/share/wallpapers/DarkestHour/contents/images/2560x1600.jpg": "8e3703fae3a3c217",
    "usr/share/wallpapers/summer_1am/contents/images/2560x1600.jpg": "c868b50789591dd4",
    "usr/share/wallpapers/EveningGlow/contents/images/2560x1600.jpg": "586682dcb362b9f6",
    "usr/share/wallpapers/ColdRipple/contents/images/2560x1600.jpg": "05bef6722fc0ed81",
    "usr/share/wallpapers/BytheWater/contents/images/2560x1600.jpg": "c272434ef39f2abf",
}
SEED = 8_100_000
TOLERANCE = 10.0  # degrees, as the benchmark and most widgets judge


def fetch(cache: Path) -> Path:
    """The pinned packages, unpacked under `cache/root` (downloaded once)."""
    debs, root = cache / "debs", cache / "root"
    debs.mkdir(parents=True, exist_ok=True)
    for name, version in PACKAGES.items():
        deb = debs / f"{name}_{version.replace(':', '%3a')}_all.deb"
        if not deb.is_file():
            subprocess.run(["apt-get", "download", f"{name}={version}"], cwd=debs, check=True)  # noqa: S603, S607
        if not all((root / photo).is_file() for photo in PHOTOS):
            subprocess.run(["dpkg-deb", "-x", str(deb), str(root)], check=True)  # noqa: S603, S607
    changed = [photo for photo, digest in PHOTOS.items()
               if not (root / photo).is_file() or hashlib.sha256((root / photo).read_bytes()).hexdigest()[:16] != digest]
    if changed:
        raise SystemExit(f"missing or not the photographs fitted on: {', '.join(changed)}")
    return root


def readings(root: Path, crops: int) -> list[tuple[float, float]]:
    """(confidence, error in degrees) for every crop of every photograph."""
    rng = random.Random(SEED)  # noqa: S311 -- reproducible calibration crops
    rows = []
    for photo in PHOTOS:
        picture = Image.open(root / photo).convert("RGB")
        picture.thumbnail((900, 900))
        for _ in range(crops):
            side = int(min(picture.size) * rng.uniform(0.5, 0.9))
            x, y = rng.randint(0, picture.width - side), rng.randint(0, picture.height - side)
            turn = rng.uniform(0, 360)  # counter-clockwise: undone by `turn` clockwise
            shown = picture.crop((x, y, x + side, y + side)).resize((200, 200)).rotate(turn, resample=Image.BICUBIC)
            data = io.BytesIO()
            shown.save(data, "JPEG", quality=85)
            try:
                degrees, confidence = rotation.read_rotation(data.getvalue())
            except SolverInputError:
                degrees, confidence = 0.0, 0.0
            rows.append((confidence, abs((degrees - turn + 180) % 360 - 180)))
    return rows


def fit(rows: list[tuple[float, float]]) -> dict:
    """Kept and right per candidate threshold, and the rule's threshold per number of tries."""
    table = {}
    for threshold in CANDIDATES:
        kept = [error for confidence, error in rows if confidence >= threshold]
        right = sum(error <= TOLERANCE for error in kept)
        table[str(threshold)] = {"kept": len(kept), "precision": round(right / len(kept), 4) if kept else None}
    thresholds = {str(tries): choose_threshold(table, len(rows), tries) for tries in range(1, MAX_TRIES + 1)}
    return {"by_threshold": table, "thresholds": thresholds}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--crops", type=int, default=24, help="crops per photograph")
    parser.add_argument("--cache", type=Path, default=ROOT / ".local" / "rotation-photos")
    parser.add_argument("--out", type=Path, default=GATE_PATH)
    args = parser.parse_args()
    rows = readings(fetch(args.cache), args.crops)
    right = sum(error <= TOLERANCE for _, error in rows)
    gate = {
        "reader_sha256": lone_reader_sha256(),
        "method": "priors",
        "photographs": PHOTOS,
        "packages": PACKAGES,
        "samples": len(rows),
        "tolerance_degrees": TOLERANCE,
        "right_if_always_answering": round(right / len(rows), 4),
        **fit(rows),
    }
    with tempfile.NamedTemporaryFile("w", dir=args.out.parent, suffix=".part", delete=False) as staged:
        json.dump(gate, staged, indent=1)
    Path(staged.name).replace(args.out)
    print(json.dumps({k: gate[k] for k in ("samples", "right_if_always_answering", "thresholds")}))


if __name__ == "__main__":
    main()
