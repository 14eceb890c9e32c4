"""The one convention of the builders: a frozen dataclass of a paper's choices with two presets,
``.paper()`` and ``.default()``, and keyword overrides of its fields."""

import dataclasses
import logging
from typing import Any, Dict, Mapping, Optional, Tuple, Type, TypeVar

import numpy as np

logger = logging.getLogger("gpflow_deep")

Config = TypeVar("Config")


class Presets:
    """The two presets of a builder's config dataclass: ``.default()``, the safe default, and
    ``.paper()``, the paper's (or its public code's) setup. Both are the field defaults here; a
    config whose paper differs overrides ``paper``."""

    @classmethod
    def paper(cls):
        """The paper's setup."""
        return cls()

    @classmethod
    def default(cls):
        """The safe default: the field defaults."""
        return cls()


Alias = Tuple[str, Mapping[Any, str]]
"""A keyword kept from before the configs, and the preset each of its values names."""

SETUP_ALIAS: Alias = ("setup", {"data": "default", "paper": "paper"})
"""``setup="paper"`` / ``setup="data"``: the keyword the DSVI, random-feature and SoD builders share."""


def configure(
    builder: str,
    config_class: Type[Config],
    config: Optional[Config],
    overrides: Dict[str, Any],
    alias: Optional[Alias],
) -> Config:
    """The config a builder runs with: ``config`` (``config_class.default()`` if None, or the preset
    the ``alias`` keyword names) with ``overrides`` of its fields (``dataclasses.replace``). Logs
    the preset's choices that differ from the other preset and were not overridden."""
    overrides = dict(overrides)
    preset = "default" if config is None else None
    if alias is not None and alias[0] in overrides:
        name, presets = alias
        value = overrides.pop(name)
        if value not in presets:
            raise ValueError(f"{name} must be one of {tuple(presets)}, got {value!r}")
        if config is not None:
            raise TypeError(f"{builder}() got both config= and {name}=; {name}={value!r} is a preset of the config")
        preset = presets[value]
    if config is not None and not isinstance(config, config_class):
        raise TypeError(f"{builder}: config must be a {config_class.__name__}, got {type(config).__name__}")
    names = [field.name for field in dataclasses.fields(config_class)]
    for name in overrides:
        if name not in names:
            error = TypeError(f"{builder}() got an unexpected keyword argument {name!r}")
            error.add_note(f"The valid ones are the fields of {config_class.__name__}: {', '.join(names)}")
            raise error
    if preset is not None:
        config = getattr(config_class, preset)()
        _log_preset(builder, config_class, preset, set(overrides))
    return dataclasses.replace(config, **overrides)


def _log_preset(builder: str, config_class: type, preset: str, overridden: set) -> None:
    """One log line naming the preset's values where the two presets differ."""
    chosen, other = config_class.paper(), config_class.default()
    if preset == "default":
        chosen, other = other, chosen
    differences = [
        f"{field.name}={getattr(chosen, field.name)!r}"
        for field in dataclasses.fields(config_class)
        if field.name not in overridden and getattr(chosen, field.name) != getattr(other, field.name)
    ]
    if differences:
        where = (
            f"safe defaults ({config_class.__name__}.paper() for the paper's)"
            if preset == "default"
            else f"the paper's setup ({config_class.__name__}.paper())"
        )
        logger.info("%s: %s: %s", builder, where, ", ".join(differences))


def log_choice(builder: str, name: str, value: Any, reason: str) -> Any:
    """``value``, decided from the data for a field left None, logged at INFO with the reason."""
    logger.info("%s: %s=%s (%s)", builder, name, _shown(value), reason)
    return value


def _shown(value: Any) -> str:
    """Floats to four digits, lists of them too; anything else as ``repr``."""
    if isinstance(value, (float, np.floating)):
        return f"{value:.4g}"
    if isinstance(value, list):
        return "[" + ", ".join(_shown(item) for item in value) + "]"
    return repr(value)
