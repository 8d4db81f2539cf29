"""The recogniser's network: a small convolutional CTC model (CNN features → 1-D convolutions
along the text → classes), sized so `make train-ocr` fits an hour on two CPU cores.

Input: N×3×32×128 float pixels 0-255 (`workers.captcha.solvers.recogniser.prepare`); each
image is standardised inside the network, so light and dark CAPTCHAs look alike to it.
Output: N×32×C logits, one step per 4 input columns, class 0 the CTC blank. Convolutions
only (no recurrent layer): they train several times faster on a CPU and export plainly.

Second version (2026-12-05): the first layer reads the image at full resolution (the first
version's stride-2 first layer lost strokes two pixels wide), the layers are wider and a third
dilated layer along the text widens the context to about 15 steps: 0.88 M parameters, about
2.7 times the first version's training time per image.
"""

from __future__ import annotations

import torch
from torch import nn


def _block(cin: int, cout: int, pool: tuple[int, int] | None, stride: int = 1) -> nn.Sequential:
    layers: list[nn.Module] = [nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False), nn.BatchNorm2d(cout),
                               nn.ReLU(inplace=True)]
    if pool:
        layers.append(nn.MaxPool2d(pool, pool))
    return nn.Sequential(*layers)


def _along(cin: int, cout: int, dilation: int) -> list[nn.Module]:
    return [nn.Conv1d(cin, cout, 3, padding=dilation, dilation=dilation), nn.BatchNorm1d(cout), nn.ReLU(inplace=True),
            nn.Dropout(0.1)]


class CRNN(nn.Module):
    """About 0.88 M parameters, ~110 M multiply-adds per image."""

    def __init__(self, num_classes: int) -> None:
        super().__init__()
        self.features = nn.Sequential(
            _block(3, 32, (2, 2)),          # 16×64
            _block(32, 64, (2, 2)),         # 8×32
            _block(64, 112, None),
            _block(112, 128, (2, 1)),       # 4×32
            _block(128, 192, (4, 1)),       # 1×32
        )
        self.sequence = nn.Sequential(*_along(192, 224, 1), *_along(224, 224, 2), *_along(224, 224, 4))
        self.classify = nn.Conv1d(224, num_classes, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x / 255.0
        mean = x.mean(dim=(1, 2, 3), keepdim=True)
        std = x.std(dim=(1, 2, 3), keepdim=True)
        x = (x - mean) / (std + 1e-3)
        f = self.features(x).squeeze(2)            # N×128×32
        return self.classify(self.sequence(f)).transpose(1, 2)  # N×T×C
