"""Fused path: the training step traced as a tf.function; every FusedBatchNormGrad* op in its
graph has its input and output tensors returned by that same function, so they are the values
TensorFlow fed to and got from the op in that one step, on that device."""

from .frameworks import short_message, tf, to_numpy
from .errors import CaptureError

GRAD_OPS = ("FusedBatchNormGrad", "FusedBatchNormGradV2", "FusedBatchNormGradV3")
# Outputs past these are reserve_space_3/4/5, which TensorFlow leaves undefined.
DEFINED_OUTPUTS = 3
_PASS_THROUGH = ("Identity", "IdentityN", "StopGradient")


def _forward_op(grad_op):
    """The FusedBatchNorm* op whose reserve_space_1 feeds grad_op."""
    op = grad_op.inputs[3].op
    while op.type in _PASS_THROUGH and op.inputs:
        op = op.inputs[0].op
    return op


def _attr(op, name, default=None):
    try:
        v = op.get_attr(name)
    except ValueError:
        return default
    return v.decode() if isinstance(v, bytes) else v


def _layer_for(forward_name, layer_names):
    """The innermost model layer whose name is a scope of the forward op, else the scope."""
    parts = forward_name.split("/")[:-1]
    for p in reversed(parts):
        if p in layer_names:
            return p
    return "/".join(parts) or forward_name


def run(model, x, y, loss_fn, loss_name, layer_names, loss_scale=1.0):
    """Returns one record per grad op, in call order (of the forward ops): layer (name#k for a
    layer's k-th call where it was called more than once), op, attrs, inputs, outputs."""
    t = tf()
    meta = []

    @t.function(autograph=False)
    def step(x, y):
        with t.GradientTape() as tape:
            pred = forward(model, x)
            loss = scaled(loss_value(loss_fn, loss_name, y, pred), loss_scale)
        tape.gradient(loss, model.trainable_variables)
        fetch = []
        ops = t.compat.v1.get_default_graph().get_operations()
        position = {op.name: i for i, op in enumerate(ops)}
        for op in ops:
            if op.type not in GRAD_OPS:
                continue
            fwd = _forward_op(op)
            meta.append({
                "op": op.type,
                "forward": fwd.name,
                "call_order": position.get(fwd.name, len(ops)),
                "layer": _layer_for(fwd.name, layer_names),
                "input_names": [a.name for a in op.op_def.input_arg],
                "output_names": [a.name for a in op.op_def.output_arg][:DEFINED_OUTPUTS],
                "attrs": {
                    "epsilon": float(_attr(op, "epsilon", 1e-4)),
                    "data_format": _attr(op, "data_format", "NHWC"),
                    "is_training": bool(_attr(op, "is_training", True)),
                },
            })
            fetch.append((list(op.inputs), list(op.outputs[:DEFINED_OUTPUTS])))
        return fetch, loss

    try:
        fetched, _ = step(x, y)
    except CaptureError:
        raise
    except Exception as e:  # TensorFlow raises many types; the message is what the user needs
        raise CaptureError("the training step failed: " + short_message(e)) from None
    records = []
    for m, (ins, outs) in zip(meta, fetched):
        records.append(dict(
            m,
            inputs={n: to_numpy(v) for n, v in zip(m["input_names"], ins)},
            outputs={n: to_numpy(v) for n, v in zip(m["output_names"], outs)},
        ))
    # The backward pass meets a shared layer's calls last first.
    records.sort(key=lambda r: r["call_order"])
    calls = {}
    for r in records:
        calls.setdefault(r["layer"], []).append(r)
    for layer, rs in calls.items():
        if len(rs) > 1:
            for k, r in enumerate(rs):
                r["layer"] = f"{layer}#{k}"
    return records


def forward(model, x):
    try:
        pred = model(x, training=True)
    except Exception as e:
        raise CaptureError(f"--batch: model '{model.name}' rejects x of shape "
                           f"{tuple(x.shape)} {x.dtype.name}: {short_message(e)}") from None
    outputs = list(pred.values()) if isinstance(pred, dict) else pred
    if not isinstance(outputs, (list, tuple)):
        return pred
    if len(outputs) == 1:
        return outputs[0]
    names = list(pred) if isinstance(pred, dict) else list(getattr(model, "output_names", None)
                                                            or [])
    which = f" ({', '.join(map(str, names))})" if len(names) == len(outputs) else ""
    raise CaptureError(f"model '{model.name}' has {len(outputs)} outputs{which}; the capture "
                       "takes one y and one loss: capture a single-output model, e.g. "
                       "keras.Model(model.inputs, model.outputs[0])")


def loss_value(loss_fn, loss_name, y, pred):
    t = tf()
    try:
        return t.reduce_mean(loss_fn(y, pred))
    except Exception as e:
        raise CaptureError(f"--loss {loss_name}: cannot be used with the model's output of shape "
                           f"{tuple(pred.shape)} and y of shape {tuple(y.shape)}: "
                           f"{short_message(e)}") from None


def scaled(loss, scale):
    """The loss as a LossScaleOptimizer hands it to the tape."""
    return loss if scale == 1.0 else loss * tf().cast(scale, loss.dtype)
