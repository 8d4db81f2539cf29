.PHONY: up test setup bench train-ocr calibrate-rotation

up:  ## set up and start the whole stack with demo data (Ctrl-C stops it)
	scripts/up.sh

test:  ## set up what the tests need and run them
	scripts/test.sh

setup:
	scripts/setup.sh

bench:
	scripts/bench.sh

train-ocr:  ## the text-CAPTCHA recogniser's fixed recipe: data, fine-tuning, ONNX export, 8-bit weights, the gate (docs/captcha-ocr.md)
	scripts/train_ocr.sh

calibrate-rotation:  ## the lone-picture rotation gate, fitted on photographs from Debian wallpaper packages (docs/captcha.md)
	scripts/setup.sh && .venv/bin/python -m scripts.calibrate_rotation
