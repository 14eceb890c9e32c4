"""``gpflow-deep fit --option NAME=VALUE``: fields of the model's builder config, set from the
command line and checked against the config's fields and their types before any row is read."""

import dataclasses
import json
import typing
from typing import Dict, List, Sequence, Tuple

from gpflow_deep.app.cli.parsing import CommandError

FLAGS = {"num_layers": "--layers", "seed": "--seed", "likelihood": "--likelihood", "num_data": None, "config": None}
"""Builder keywords that ``fit`` sets itself: the flag that sets each, or None."""
_SIMPLE = (bool, int, float, str, type(None))


def parse_options(pairs: Sequence[str], model: str) -> Dict[str, object]:
    """``["num_members=3", "kernel=arccos"]`` -> ``{"num_members": 3, "kernel": "arccos"}`` for
    ``model``'s builder. A value is read as JSON (``3``, ``0.1``, ``true``, ``null``) and otherwise
    kept as text. Names and types are checked against the builder's config dataclass when the
    model's registry entry names one."""
    from gpflow_deep.registry import builder_config_class

    options = dict(_split(pair) for pair in pairs)
    config_class = builder_config_class(model)
    types = _field_types(config_class) if config_class is not None else None
    for name, value in options.items():
        if name in FLAGS:
            flag = FLAGS[name]
            raise CommandError(f"--option {name}: " + (f"use {flag}" if flag else "fit sets it from the table"))
        if types is not None:
            _check_field(types, model, name, value)
    return options


def _split(pair: str) -> Tuple[str, object]:
    name, equals, text = pair.partition("=")
    name = name.strip()
    if not equals or not name:
        raise CommandError(f"--option {pair!r}: give NAME=VALUE, e.g. num_members=3")
    try:
        return name, json.loads(text)
    except json.JSONDecodeError:
        return name, text.strip()


def _check_field(types: Dict[str, Tuple[type, ...]], model: str, name: str, value: object) -> None:
    """A command-line value of the field ``name`` of a config whose fields take ``types``, or a
    one-line error."""
    if name not in types:
        raise CommandError(f"--option {name}: {model} has no such option; its options: {', '.join(_settable(types))}")
    allowed = types[name]
    if not allowed:
        raise CommandError(f"--option {name}: takes a Python object; build the model in Python to set it")
    if not any(_is_instance(value, kind) for kind in allowed):
        names = " or ".join("null" if kind is type(None) else kind.__name__ for kind in allowed)
        raise CommandError(f"--option {name}: expected {names}, got {json.dumps(value)}")


def _field_types(config_class: type) -> Dict[str, Tuple[type, ...]]:
    """Each field of ``config_class`` and the types the command line can give it (:func:`_simple_types`)."""
    hints = typing.get_type_hints(config_class)
    return {field.name: _simple_types(hints[field.name]) for field in dataclasses.fields(config_class)}


def _simple_types(hint: object) -> Tuple[type, ...]:
    """The command-line types in a field's annotation: ``Optional[int]`` -> ``(int, NoneType)``;
    none for ``Optional[numpy.ndarray]``, whose only value from the command line would be its default."""
    members = typing.get_args(hint) if typing.get_origin(hint) is typing.Union else (hint,)
    simple = tuple(member for member in members if member in _SIMPLE)
    return simple if set(simple) - {type(None)} else ()


def _settable(types: Dict[str, Tuple[type, ...]]) -> List[str]:
    return [name for name, allowed in types.items() if allowed]


def _is_instance(value: object, kind: type) -> bool:
    """JSON's types against a field's: an integer is a float, a boolean is not an integer."""
    if isinstance(value, bool):
        return kind is bool
    if kind is float:
        return isinstance(value, (int, float))
    return isinstance(value, kind)


def described(options: Dict[str, object]) -> List[str]:
    """``["num_members=3", "kernel='arccos'"]``: each option as Python would write the keyword."""
    return [f"{name}={value!r}" for name, value in options.items()]
