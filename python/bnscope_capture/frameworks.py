"""What differs between Keras 3 and tf_keras (Keras 2): finding the batch-normalization layers,
their parameters, losses and dtype policies."""

import re

import numpy as np


def tf():
    import tensorflow

    return tensorflow


def keras3():
    import keras

    return keras


def tf_keras_or_none():
    try:
        import tf_keras
    except ImportError:
        return None
    return tf_keras


def is_tf_keras_model(model):
    tk = tf_keras_or_none()
    return tk is not None and isinstance(model, tk.Model)


def keras_module_for(model):
    return tf_keras_or_none() if is_tf_keras_model(model) else keras3()


def _bn_classes():
    classes = [keras3().layers.BatchNormalization]
    tk = tf_keras_or_none()
    if tk is not None:
        # Their common base: SyncBatchNormalization (and the V1 layer) derive from it.
        classes.extend(c for c in tk.layers.BatchNormalization.__mro__
                       if c.__name__ in ("BatchNormalization", "BatchNormalizationBase"))
    return tuple(classes)


def all_layers(model):
    """Every layer inside model (nested models included), in model order."""
    if hasattr(model, "_flatten_layers"):
        return [l for l in model._flatten_layers(include_self=False, recursive=True)]
    out = []
    for l in getattr(model, "layers", []):
        out.append(l)
        out.extend(all_layers(l))
    return out


def batch_norm_layers(model):
    classes = _bn_classes()
    return [l for l in all_layers(model) if isinstance(l, classes)]


def layer_axis(layer):
    axis = layer.axis
    if isinstance(axis, (list, tuple)):
        if len(axis) != 1:
            return None
        axis = axis[0]
    return int(axis)


def layer_policy(layer):
    policy = getattr(layer, "dtype_policy", None) or getattr(layer, "_dtype_policy", None)
    return getattr(policy, "name", None) or str(getattr(layer, "dtype", ""))


def model_policy(model):
    policies = sorted({layer_policy(l) for l in all_layers(model)} - {""})
    if not policies:
        return layer_policy(model)
    return policies[0] if len(policies) == 1 else "mixed: " + ", ".join(policies)


def resolve_loss(model, loss):
    """(callable, name): --loss names a Keras loss; else the model's compiled loss."""
    km = keras_module_for(model)
    if loss is None:
        compiled = getattr(model, "loss", None)
        if compiled is None:
            from .errors import CaptureError

            raise CaptureError(
                f"model '{model.name}' was not compiled with a loss; give --loss NAME "
                "(a Keras loss such as mse or sparse_categorical_crossentropy)")
        if isinstance(compiled, (dict, list, tuple)):
            from .errors import CaptureError

            raise CaptureError(
                f"model '{model.name}' has one loss per output; the capture takes one y and one "
                "loss: capture a single-output model, e.g. keras.Model(model.inputs, "
                "model.outputs[0]), with --loss NAME")
        loss = compiled
    try:
        fn = km.losses.get(loss)
    except (ValueError, TypeError):
        fn = None
    if fn is None:
        from .errors import CaptureError

        raise CaptureError(f"--loss {loss}: not a Keras loss; expected a name such as mse, "
                           "categorical_crossentropy or sparse_categorical_crossentropy")
    name = loss if isinstance(loss, str) else getattr(loss, "name", None) or getattr(
        loss, "__name__", type(loss).__name__)
    return fn, name


# What TensorFlow wraps a graph error's cause in: a heading, the call stack where the node was
# defined, the node and function names.
_WRAPPING = re.compile(r"^(Graph execution error:?|Detected at node .*|File \".*|\[\[.*\]\]|"
                       r"\[Op:.*\])$")
_NODE_SUFFIX = re.compile(r"\s*(\[\[\{\{node [^\]]*\]\]|\[Op:[^\]]*\])")


def short_message(e, limit=240):
    """TensorFlow's error, shortened to one line."""
    text = str(e).strip()
    # TensorFlow prefixes graph errors with a long call stack; keep the cause.
    lines = [_NODE_SUFFIX.sub("", l).strip() for l in text.splitlines()]
    lines = [l for l in lines if l]
    lines = [l for l in lines if not _WRAPPING.match(l)] or lines
    keep = next((l for l in lines if re.search(r"(Error|error|expected|Expected|Incompatible|"
                                                 r"incompatible|shape|Shape)", l)), None)
    line = keep or (lines[0] if lines else type(e).__name__)
    line = re.sub(r"\s+", " ", line)
    return line if len(line) <= limit else line[: limit - 3] + "..."


def to_numpy(t):
    return np.asarray(t.numpy() if hasattr(t, "numpy") else t)
