"""How inputs travel through a stack of layers: one rule per file.

A rule is an object with one call signature (:class:`Propagation`), which every model takes:
``rule(layers, X, num_samples, seed, mode=..., first_row=...) -> Paths``, every layer's outputs
``[S, N, D_l]`` on S paths and the paths' log-weights ``[S]``; ``rule.check(layers)`` says whether
it can carry the layers, ``rule.monte_carlo`` whether its paths are random draws. The rules are

- :class:`Sampled`: doubly stochastic draws (DSVI; the function :func:`sample_layers`);
- :class:`FeedInputs`: the same with X appended to every later layer's inputs (random features;
  :func:`sample_layers_feeding_inputs`);
- :class:`SigmaPoints`: DSPP's deterministic sigma points (:func:`sigma_point_layers`);
- :class:`MomentMatching`: one Gaussian matched layer by layer (:func:`moment_matched_layers`);
- :class:`SubsetFirst`: draws that carry a subset of the training data first (SoD).

Layers are anything that keeps the layer protocol (:mod:`gpflow_deep.layers.protocol`). The first
layer sees the same inputs on every path, so it receives them once (``[1, N, D]``): a layer that
draws nothing of its own is evaluated once and its outputs broadcast, and one that draws per path
(``path_dependent``) is told the number of paths and shares whatever does not depend on the draw.
"""

from gpflow_deep.propagation.aliases import as_propagation
from gpflow_deep.propagation.fed_forward import FeedInputs, sample_layers_feeding_inputs
from gpflow_deep.propagation.joint import sample_layers_jointly
from gpflow_deep.propagation.moment_matching import MomentMatching, moment_matched_layers
from gpflow_deep.propagation.outputs import LayerOutput, Paths, uniform_log_weights
from gpflow_deep.propagation.protocol import JointSampling, Propagation
from gpflow_deep.propagation.sampled import Sampled, sample_layers
from gpflow_deep.propagation.sigma_points import SigmaPoints, sigma_point_layers
from gpflow_deep.propagation.subset_first import SubsetFirst

__all__ = [
    "FeedInputs",
    "JointSampling",
    "LayerOutput",
    "MomentMatching",
    "Paths",
    "Propagation",
    "Sampled",
    "SigmaPoints",
    "SubsetFirst",
    "as_propagation",
    "moment_matched_layers",
    "sample_layers",
    "sample_layers_feeding_inputs",
    "sample_layers_jointly",
    "sigma_point_layers",
    "uniform_log_weights",
]
