"""The names that earlier versions took for propagation rules, still accepted where a rule is."""

from typing import Union

from gpflow_deep.propagation.moment_matching import MomentMatching
from gpflow_deep.propagation.protocol import Propagation
from gpflow_deep.propagation.sampled import Sampled

ALIASES = {"monte_carlo": Sampled, "moment_matching": MomentMatching}
"""``"monte_carlo"``: :class:`Sampled`; ``"moment_matching"``: :class:`MomentMatching`."""


def as_propagation(propagation: Union[str, Propagation]) -> Propagation:
    """The rule named by an alias of :data:`ALIASES`, or ``propagation`` itself if it is a rule."""
    if isinstance(propagation, str):
        if propagation not in ALIASES:
            raise ValueError(f"propagation must be one of {tuple(ALIASES)}, got {propagation!r}")
        return ALIASES[propagation]()
    if not isinstance(propagation, Propagation):
        raise TypeError(
            f"propagation must be a rule of gpflow_deep.propagation (e.g. Sampled()) or one of {tuple(ALIASES)}, "
            f"got {type(propagation).__name__}"
        )
    return propagation
