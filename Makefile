.PHONY: up test setup bench

up:  ## set up and start the whole stack with demo data (Ctrl-C stops it)
	scripts/up.sh

test:  ## set up what the tests need and run them
	scripts/test.sh

setup:
	scripts/setup.sh

bench:
	scripts/bench.sh
