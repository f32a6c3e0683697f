# The two set-up commands (README): `make up` starts the product, `make test` runs every test.
.PHONY: up down test

up:
	bash scripts/up.sh

down:
	bash scripts/down.sh

test:
	bash scripts/test.sh
