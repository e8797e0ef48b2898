"""Repository tooling, run from the checkout as modules (`python -m scripts.gen_docs`)
or as files; never shipped in the wheel."""
