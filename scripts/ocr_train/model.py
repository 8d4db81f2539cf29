"""The recogniser's network: a small convolutional CTC model (CNN features → 1-D convolutions
along the text → classes), sized so `make train-ocr` fits an hour on two CPU cores.

Input: N×3×32×128 float pixels 0-255 (`workers.captcha.solvers.recogniser.prepare`); each
image is standardised inside the network, so light and dark CAPTCHAs look alike to it.
Output: N×32×C logits, one step per 4 input columns, class 0 the CTC blank. Convolutions
only (no recurrent layer): they train several times faster on a CPU and export plainly.
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


class CRNN(nn.Module):
    """About 0.3 M parameters, ~40 M multiply-adds per image."""

    def __init__(self, num_classes: int) -> None:
        super().__init__()
        self.features = nn.Sequential(
            _block(3, 16, None, stride=2),  # 16×64
            _block(16, 32, (2, 2)),         # 8×32
            _block(32, 64, None),
            _block(64, 96, (2, 1)),         # 4×32
            _block(96, 128, (4, 1)),        # 1×32
        )
        self.sequence = nn.Sequential(
            nn.Conv1d(128, 160, 3, padding=1), nn.BatchNorm1d(160), nn.ReLU(inplace=True), nn.Dropout(0.1),
            nn.Conv1d(160, 160, 3, padding=2, dilation=2), nn.BatchNorm1d(160), nn.ReLU(inplace=True), nn.Dropout(0.1),
        )
        self.classify = nn.Conv1d(160, num_classes, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x / 255.0
        mean = x.mean(dim=(1, 2, 3), keepdim=True)
        std = x.std(dim=(1, 2, 3), keepdim=True)
        x = (x - mean) / (std + 1e-3)
        f = self.features(x).squeeze(2)            # N×128×32
        return self.classify(self.sequence(f)).transpose(1, 2)  # N×T×C
