"""The layer protocol: what a layer offers the propagations, objectives, natural gradients and
TensorBoard. Any object with these members is a layer; nothing needs to subclass anything.

- ``input_dim``, ``output_dim``: the widths D_in and D_out.
- ``path_dependent``: True when the layer draws randomness of its own on every path (random
  features redrawn per path, a weight sample per path), so that even identical inputs give
  different outputs on different paths. Propagations then pass it ``num_paths`` = S; otherwise
  a layer that sees the same inputs on every path (the first) is evaluated once and broadcast.
- ``marginals(inputs, *, seed=None, mode="posterior") -> (mean, var)``: Gaussian marginals
  ``[S, N, D_out]`` of the layer's outputs at inputs ``[S, N, D_in]``, given the layer's own draw
  for each path; ``[1, N, D_in]`` inputs are shared by all paths. A ``path_dependent`` layer also
  takes ``num_paths`` (S; by default the inputs' leading size) and returns S paths for shared
  inputs. ``seed`` (a ``[2]`` int tensor, fresh per layer and call) keys that draw;
  ``mode`` names the distribution over the layer's function: ``"posterior"`` always, and
  ``"cavity"`` for layers that have one (approximate EP). A layer rejects modes it lacks.
- ``regulariser(inputs=None) -> []``: the term the objective subtracts (β-weighted): a KL for
  variational layers, minus the EP log-normaliser terms for EP layers. ``inputs`` are the
  ``[S, N, D_in]`` the layer received on the paths, for regularisers that depend on them (a
  subset-of-data layer's KL against a prior at its sampled inducing inputs); others ignore them.
- ``natural_gradient_parameters() -> [(q_mu, q_sqrt), ...]``: the Gaussian parameter pairs that
  ``gpflow.optimizers.NaturalGradient`` may take over (none: an empty list).
- ``monitored_scalars() -> {name: callable}``: scalars worth watching in TensorBoard, each a
  function of no arguments (``{"kl": layer.prior_kl}`` for a GP layer).

An optional member serves deterministic moment matching (Bui et al. 2016):
``moment_match(mean, var) -> (mean, var)``, the Gaussian matched to the layer's outputs when its
inputs are Gaussian ``[N, D_in]`` with independent dimensions.
"""

from typing import Any, Sequence

REQUIRED_METHODS = ("marginals", "regulariser", "natural_gradient_parameters", "monitored_scalars")
REQUIRED_ATTRIBUTES = ("input_dim", "output_dim", "path_dependent")
MODES = ("posterior", "cavity")


def check_layer(index: int, layer: Any) -> None:
    """A TypeError naming ``layers[index]`` and what it lacks, if it does not keep the protocol."""
    missing = [name for name in REQUIRED_ATTRIBUTES if not hasattr(layer, name)]
    missing += [name for name in REQUIRED_METHODS if not callable(getattr(layer, name, None))]
    if missing:
        raise TypeError(
            f"layers[{index}] ({type(layer).__name__}) is not a layer: it lacks {', '.join(missing)} "
            "(see gpflow_deep.layers.protocol)"
        )
    for name in ("input_dim", "output_dim"):
        width = getattr(layer, name)
        if isinstance(width, bool) or not isinstance(width, int) or width < 1:
            raise TypeError(f"layers[{index}].{name} must be a positive int, got {width!r}")


def check_mode(layer: Any, mode: str, available: Sequence[str] = ("posterior",)) -> None:
    """A ValueError if ``layer`` is asked for a distribution it does not have."""
    if mode not in available:
        raise ValueError(
            f"{type(layer).__name__} has no {mode!r} distribution (it has {', '.join(map(repr, available))})"
        )
