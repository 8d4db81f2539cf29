"""The recogniser's network, and where its training starts: ddddocr's general text reader.

Ninth recipe (2026-12-06): instead of a small network trained from nothing in an hour, the
recipe fine-tunes the network of the ddddocr release we pin (`requirements.txt`; MIT licence):
its `common.onnx` (the "beta" reader, 13.5 M parameters, trained by its authors on far more
text than two CPU cores can draw in an hour) is read into the same layers in torch
(`from_ddddocr`), its classifier cut to our classes (blank, digits, both cases of the Latin
letters, each row taken from ddddocr's row for that character), then the whole network is
trained on the recipe's synthetic CAPTCHAs. What ddddocr already reads is the start; what it
reads badly (letter case, our generators' drawing) is what the training adds.

Shape (read from the ONNX graph, checked against onnxruntime to 1e-5): an EfficientNetV2-like
convolutional stem (SiLU, residual blocks, three stride-2 stages: 64 px high to 8), each of the
W/8 columns of 64×8 features a step of a bidirectional LSTM (512 each way), a linear classifier.
Input: N×1×64×W float pixels 0-255 (`workers.captcha.solvers.recogniser.prepare`), scaled to
0-1 as ddddocr's own preprocessing does. Output: N×(W/8)×C logits, class 0 the CTC blank.
"""

from __future__ import annotations

from pathlib import Path

import torch
from torch import nn


class _Residual(nn.Module):
    def __init__(self, channels: int, expanded: int) -> None:
        super().__init__()
        self.expand = nn.Conv2d(channels, expanded, 3, padding=1)
        self.project = nn.Conv2d(expanded, channels, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.project(nn.functional.silu(self.expand(x)))


class Reader(nn.Module):
    """ddddocr's text reader with a classifier of `num_classes`."""

    def __init__(self, num_classes: int) -> None:
        super().__init__()
        self.stem = nn.Conv2d(1, 24, 3, 2, 1)
        self.stage1 = nn.Sequential(_Residual(24, 24), _Residual(24, 24))
        self.down2, self.narrow2 = nn.Conv2d(24, 96, 3, 2, 1), nn.Conv2d(96, 48, 1)
        self.stage2 = nn.Sequential(*(_Residual(48, 192) for _ in range(3)))
        self.down3, self.narrow3 = nn.Conv2d(48, 192, 3, 2, 1), nn.Conv2d(192, 64, 1)
        self.stage3 = nn.Sequential(*(_Residual(64, 256) for _ in range(3)))
        self.lstm = nn.LSTM(512, 512, bidirectional=True)
        self.classify = nn.Linear(1024, num_classes)

    def convolutions(self) -> list[nn.Conv2d]:
        """In the order of the ONNX graph's Conv nodes."""
        def pairs(stage: nn.Sequential) -> list[nn.Conv2d]:
            return [conv for block in stage for conv in (block.expand, block.project)]
        return [self.stem, *pairs(self.stage1), self.down2, self.narrow2, *pairs(self.stage2), self.down3,
                self.narrow3, *pairs(self.stage3)]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        silu = nn.functional.silu
        x = self.stage1(silu(self.stem(x / 255.0)))
        x = self.stage2(self.narrow2(silu(self.down2(x))))
        x = self.stage3(self.narrow3(silu(self.down3(x))))   # N×64×8×(W/8)
        x = x.permute(3, 0, 1, 2).flatten(2)                  # (W/8)×N×512
        y, _ = self.lstm(x)
        return self.classify(y).transpose(0, 1)               # N×(W/8)×C


def ddddocr_weights() -> Path:
    """The pinned ddddocr release's general reader (`common.onnx`, its "beta" model)."""
    import ddddocr

    return Path(ddddocr.__file__).resolve().parent / "common.onnx"


def ddddocr_charset() -> list[str]:
    """The classes of `common.onnx`, index 0 the CTC blank."""
    from ddddocr.models.charset_manager import CharsetManager

    manager = CharsetManager()
    manager.load_default_charset(beta=True)
    return manager.get_charset()


def from_ddddocr(classes: list[str]) -> Reader:
    """A `Reader` holding ddddocr's weights, its classifier cut to `classes` (index 0 the blank)."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(ddddocr_weights())).graph
    weights = {t.name: torch.from_numpy(numpy_helper.to_array(t).copy()) for t in graph.initializer}
    nodes = {op: [n for n in graph.node if n.op_type == op] for op in ("Conv", "LSTM", "Gemm")}
    model = Reader(len(classes))
    convs = model.convolutions()
    if len(convs) != len(nodes["Conv"]):
        raise ValueError(f"ddddocr's graph has {len(nodes['Conv'])} convolutions, the Reader {len(convs)}")
    for conv, node in zip(convs, nodes["Conv"]):
        conv.weight.data.copy_(weights[node.input[1]])
        conv.bias.data.copy_(weights[node.input[2]])

    def gates(t: torch.Tensor) -> torch.Tensor:  # ONNX orders an LSTM's gates i, o, f, c; torch i, f, c, o
        i, o, f, c = t.chunk(4, 0)
        return torch.cat([i, f, c, o], 0)

    w, r, b = (weights[name] for name in nodes["LSTM"][0].input[1:4])
    hidden = model.lstm.hidden_size
    for direction, suffix in ((0, ""), (1, "_reverse")):
        getattr(model.lstm, f"weight_ih_l0{suffix}").data.copy_(gates(w[direction]))
        getattr(model.lstm, f"weight_hh_l0{suffix}").data.copy_(gates(r[direction]))
        getattr(model.lstm, f"bias_ih_l0{suffix}").data.copy_(gates(b[direction][:4 * hidden]))
        getattr(model.lstm, f"bias_hh_l0{suffix}").data.copy_(gates(b[direction][4 * hidden:]))
    gemm = nodes["Gemm"][0]
    theirs = {c: i for i, c in enumerate(ddddocr_charset())}
    rows = [0 if not c else theirs[c] for c in classes]
    model.classify.weight.data.copy_(weights[gemm.input[1]][rows])
    model.classify.bias.data.copy_(weights[gemm.input[2]][rows])
    return model
