"""Random-feature layers (Cutajar et al. 2017): ``RandomFeatureLayer`` and its feature maps."""

from gpflow_deep.layers.random_features.random_feature_layer import RandomFeatureLayer

__all__ = ["RandomFeatureLayer"]
