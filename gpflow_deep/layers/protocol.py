"""The layer protocol: what a layer offers the propagations, objectives, natural gradients and
TensorBoard, as ``typing.Protocol`` s. Any object with these members is a layer; nothing needs to
subclass anything, and ``isinstance(layer, Layer)`` checks the members by name.

:class:`Layer` holds what every layer has. The small protocols after it are capabilities that
some propagations, objectives and models need, each checked with ``isinstance`` where it is used:
:class:`MomentMatchable`, :class:`JointlySampleable`, :class:`EPLayer`, :class:`FedInputLayer`,
:class:`SubsetOfDataLayer` and :class:`ObservedSubsetLayer`.
"""

from typing import Any, Callable, Dict, List, Optional, Protocol, Sequence, Tuple, runtime_checkable

import tensorflow as tf

MODES = ("posterior", "cavity")


@runtime_checkable
class Layer(Protocol):
    """A layer: Gaussian marginals of its outputs at inputs on S paths, and its own regulariser.

    - ``input_dim``, ``output_dim``: the widths D_in and D_out.
    - ``path_dependent``: True when the layer draws randomness of its own on every path (random
      features redrawn per path, a weight sample per path), so that even identical inputs give
      different outputs on different paths. Propagations then pass it ``num_paths`` = S; otherwise
      a layer that sees the same inputs on every path (the first) is evaluated once and broadcast.
    """

    input_dim: int
    output_dim: int
    path_dependent: bool

    def marginals(self, inputs: tf.Tensor, *, seed: Optional[tf.Tensor] = None, mode: str = "posterior"):
        """``(mean, var)``, each ``[S, N, D_out]``, of the outputs at inputs ``[S, N, D_in]`` given
        the layer's own draw for each path; ``[1, N, D_in]`` inputs are shared by all paths. A
        ``path_dependent`` layer also takes ``num_paths`` (S) and returns S paths for shared inputs.
        ``seed`` (``[2]``, fresh per layer and call) keys that draw; ``mode`` names the distribution
        over the layer's function (:data:`MODES`; a layer rejects modes it lacks, :func:`check_mode`)."""

    def regulariser(self, inputs: Optional[tf.Tensor] = None) -> tf.Tensor:
        """``[]``, the term the objective subtracts (β-weighted): a KL for variational layers, minus
        the EP log-normaliser terms for EP layers. ``inputs`` ``[S, N, D_in]`` are what the layer
        received on the paths, for regularisers that depend on them; others ignore them."""

    def natural_gradient_parameters(self) -> List[Tuple[Any, Any]]:
        """The ``(q_mu, q_sqrt)`` pairs ``gpflow.optimizers.NaturalGradient`` may take over (or none)."""

    def monitored_scalars(self) -> Dict[str, Callable[[], tf.Tensor]]:
        """``{name: function of no arguments}`` of scalars worth watching in TensorBoard."""


@runtime_checkable
class MomentMatchable(Protocol):
    """A layer that serves deterministic moment matching (Bui et al. 2016)."""

    def moment_match(self, mean: tf.Tensor, var: tf.Tensor, mode: str = "posterior") -> Tuple[tf.Tensor, tf.Tensor]:
        """The Gaussian ``([N, D_out], [N, D_out])`` matched to the outputs for inputs
        N(mean, diag(var)) ``[N, D_in]``."""


@runtime_checkable
class JointlySampleable(Protocol):
    """A layer whose outputs can be drawn jointly over the N points of a path."""

    def full_covariance(self, inputs: tf.Tensor) -> Tuple[tf.Tensor, tf.Tensor]:
        """Mean ``[S, N, L]`` and covariance ``[S, L, N, N]`` over the points of each path."""


@runtime_checkable
class EPLayer(Protocol):
    """A layer with a tied EP site standing for ``num_data`` training points."""

    num_data: int


@runtime_checkable
class FedInputLayer(Protocol):
    """A layer that can take the model's inputs appended to its own (Cutajar et al. 2017, Section
    4.3): it expects ``input_dim + fed_input_dim`` columns, ``fed_input_dim`` = 0 for none."""

    fed_input_dim: int


@runtime_checkable
class SubsetOfDataLayer(Protocol):
    """A subset-of-data layer (Jain et al. 2021): the first ``num_subset`` rows of its inputs on
    each path are its inducing inputs."""

    num_subset: int


@runtime_checkable
class ObservedSubsetLayer(SubsetOfDataLayer, Protocol):
    """A last subset-of-data layer whose q is conditioned on the subset's targets ``subset_targets``
    ``[M, L]`` under ``likelihood`` (eq. 12); ``training_terms(inputs)`` gives what the ELBO
    (eq. 11) needs from it in one pass: ``means, variances`` ``[S, N − M, L]`` at the rows after
    the subset, ``subset_means, subset_variances`` ``[S, M, L]`` of q^(F_S) and its KL ``[]``."""

    likelihood: Any
    subset_targets: Any

    def training_terms(self, inputs: tf.Tensor) -> Any:
        """The last layer's part of eq. 11 on the paths whose inputs (subset rows first) it received."""


def check_layer(index: int, layer: Any) -> None:
    """A TypeError naming ``layers[index]`` and what it lacks, if it is not a :class:`Layer`."""
    missing = missing_members(layer, Layer)
    if missing:
        raise TypeError(
            f"layers[{index}] ({type(layer).__name__}) is not a layer: it lacks {', '.join(missing)} "
            "(see gpflow_deep.layers.protocol)"
        )
    for name in ("input_dim", "output_dim"):
        width = getattr(layer, name)
        if isinstance(width, bool) or not isinstance(width, int) or width < 1:
            raise TypeError(f"layers[{index}].{name} must be a positive int, got {width!r}")


def missing_members(layer: Any, protocol: type) -> List[str]:
    """The members of ``protocol`` that ``layer`` lacks: attributes it does not have, and methods
    it does not have or cannot call."""
    attributes = [name for name in _annotations(protocol) if not hasattr(layer, name)]
    methods = [name for name in _methods(protocol) if not callable(getattr(layer, name, None))]
    return attributes + methods


def check_mode(layer: Any, mode: str, available: Sequence[str] = ("posterior",)) -> None:
    """A ValueError if ``layer`` is asked for a distribution it does not have."""
    if mode not in available:
        raise ValueError(
            f"{type(layer).__name__} has no {mode!r} distribution (it has {', '.join(map(repr, available))})"
        )


def _annotations(protocol: type) -> List[str]:
    return [name for cls in _protocols(protocol) for name in vars(cls).get("__annotations__", {})]


def _methods(protocol: type) -> List[str]:
    return [
        name
        for cls in _protocols(protocol)
        for name, value in vars(cls).items()
        if callable(value) and not name.startswith("_")
    ]


def _protocols(protocol: type) -> List[type]:
    """``protocol`` and the protocols it extends, the most basic first."""
    return [cls for cls in reversed(protocol.__mro__) if vars(cls).get("_is_protocol") and cls is not Protocol]
