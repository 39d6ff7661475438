"""Stage 6, models: the IR -> the `models/` package, and the formatter every module goes
through.

The models (`assembly`: the fast model generator; `model_reference`: the reference one, one
run over the whole spec), the formatter (`formatting`, `black_style/`) and the Jinja
environment (`environment`) the models and the templates share. `context` holds the types a
build renders with (below every implementation), `run` picks the implementations.
"""
