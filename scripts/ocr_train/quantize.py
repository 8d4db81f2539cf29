"""The recipe's last step: the exported reader's weights to 8-bit integers, measured again.

The fine-tuned reader (scripts/ocr_train/model.py) holds 5.2 M parameters, about 21 MB as
32-bit floats. onnxruntime's dynamic quantisation stores the LSTM's and the classifier's
weights (`QUANTIZE_OPS`, 80% of them) as 8-bit integers, as ddddocr ships its own reader; the
convolutions' weights are stored as 8-bit integers too, one scale per output channel, turned
back into floats by a DequantizeLinear before each convolution, which onnxruntime runs at each
read (`_store_convolutions_in_int8`; about 1 ms an image: its integer convolutions ran 2.7
times slower here than its float ones). Then the validation split is read again through
onnxruntime with the file that is committed, so the manifest's figures are the shipped model's
(the float model's are kept as `validation_float`).
The recipe hash is written again here, over the code as it stands when the recipe ends.
Safe to run again after a failure: the 8-bit file and its manifest are written beside the
exported ones and moved into place only at the end, and a file that holds quantised operators
already is refused whatever its manifest says.

    python -m scripts.ocr_train.quantize [--out workers/captcha/models]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
from pathlib import Path

import numpy as np

from scripts.ocr_train import data, train
from workers.captcha.solvers import recogniser

QUANTIZE_OPS = ["LSTM", "MatMul"]
QUANTIZED_OPS = {"DequantizeLinear", "DynamicQuantizeLinear", "DynamicQuantizeLSTM", "MatMulInteger"}


def is_quantized(path: Path) -> bool:
    """Whether the ONNX file holds the operators this step adds (its manifest may not say so)."""
    import onnx

    return any(node.op_type in QUANTIZED_OPS for node in onnx.load(str(path)).graph.node)


def read_all(model: Path, images: np.ndarray) -> list[str]:
    """Greedy reads of every image by the ONNX file, through onnxruntime as at run time."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 2
    session = onnxruntime.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
    name = session.get_inputs()[0].name
    reads: list[str] = []
    for image in images:  # one at a time, as at run time
        reads += train.greedy(session.run(None, {name: image[None].astype(np.float32)})[0])
    return reads


def _store_convolutions_in_int8(path: Path) -> None:
    """Each Conv's weight as int8 with a per-output-channel scale and a DequantizeLinear."""
    import onnx
    from onnx import helper, numpy_helper

    model = onnx.load(str(path))
    graph = model.graph
    weights = {t.name: t for t in graph.initializer}
    dequantize = []
    for node in graph.node:
        if node.op_type != "Conv" or node.input[1] not in weights:
            continue
        name = node.input[1]
        w = numpy_helper.to_array(weights[name])
        scale = np.maximum(np.abs(w).reshape(w.shape[0], -1).max(axis=1), 1e-12) / 127.0
        q = np.clip(np.round(w / scale.reshape(-1, *[1] * (w.ndim - 1))), -127, 127).astype(np.int8)
        graph.initializer.remove(weights[name])
        graph.initializer.extend([numpy_helper.from_array(q, f"{name}_int8"),
                                  numpy_helper.from_array(scale.astype(np.float32), f"{name}_scale"),
                                  numpy_helper.from_array(np.zeros(w.shape[0], np.int8), f"{name}_zero")])
        dequantize.append(helper.make_node("DequantizeLinear", [f"{name}_int8", f"{name}_scale", f"{name}_zero"],
                                           [name], axis=0))
    for node in reversed(dequantize):
        graph.node.insert(0, node)
    onnx.checker.check_model(model)
    onnx.save(model, str(path))


def quantize(out: Path) -> dict:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    model = out / recogniser.MODEL_PATH.name
    manifest_path = out / recogniser.MANIFEST_PATH.name
    manifest = json.loads(manifest_path.read_text())
    if manifest.get("quantized") or is_quantized(model):
        raise SystemExit(f"{model} is quantized already: export the float weights again (train.py) first")
    floats = train.CACHE / "ocr_crnn-float.onnx"
    shutil.copyfile(model, floats)
    staged = model.with_name(model.name + ".int8")  # moved over the float file only when all is done
    staged_manifest = manifest_path.with_name(manifest_path.name + ".int8")
    try:
        quantize_dynamic(str(floats), str(staged), weight_type=QuantType.QInt8, op_types_to_quantize=QUANTIZE_OPS)
        _store_convolutions_in_int8(staged)
        shards = sorted((train.CACHE / f"data-{data.data_hash()}").glob("val-*.npz"))
        if not shards:
            raise SystemExit(f"no validation shards for this data code in {train.CACHE}: run train.py first")
        images, texts, sources = data.load(shards)
        manifest["validation_float"] = manifest["validation"]
        manifest["validation"] = train.score(read_all(staged, images), texts, sources)
        manifest["quantized"] = {"ops": QUANTIZE_OPS, "weights": "int8, dynamic (onnxruntime.quantization)",
                                 "convolutions": "int8 weights, per-channel scale, a DequantizeLinear before each",
                                 "float_size_bytes": floats.stat().st_size}
        manifest["size_bytes"] = staged.stat().st_size
        manifest["recipe"]["hash"] = train.recipe_hash()
        staged_manifest.write_text(json.dumps(manifest, indent=2) + "\n")
        # The model first: were the manifest's move lost, the next run finds the file quantised and stops.
        os.replace(staged, model)
        os.replace(staged_manifest, manifest_path)
    finally:  # after a failure nothing is left beside the exported files
        staged.unlink(missing_ok=True)
        staged_manifest.unlink(missing_ok=True)
    return manifest


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=recogniser.MODEL_DIR)
    manifest = quantize(parser.parse_args().out)
    print(json.dumps({"int8": manifest["validation"]["all"], "float": manifest["validation_float"]["all"],
                      "size_bytes": manifest["size_bytes"]}))


if __name__ == "__main__":
    main()
