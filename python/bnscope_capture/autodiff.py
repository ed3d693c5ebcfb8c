"""Autodiff path, for BatchNormalization layers TensorFlow does not run as a fused op (Keras 3's,
and tf_keras layers that cannot be fused): one eager training step under a persistent tape, with
each layer's call recorded. The upstream gradient is the loss's gradient at the layer's output;
the reference outputs are TensorFlow's gradients through that layer alone (its output against
its input, gamma and beta, seeded with the upstream gradient)."""

from .errors import CaptureError
from .frameworks import layer_axis, short_message, tf, to_numpy
from .fused import forward, loss_value


class _Recorder:
    """Wraps a layer's call and moments for one step; restores them afterwards."""

    def __init__(self, layer, tape):
        self.layer, self.tape, self.calls, self.moments = layer, tape, [], []
        self._saved = {}

    def __enter__(self):
        layer = self.layer
        call = layer.call

        def recorded_call(inputs, *args, **kwargs):
            self.tape.watch(inputs)
            out = call(inputs, *args, **kwargs)
            self.calls.append((inputs, out))
            return out

        self._patch("call", recorded_call)
        moments = getattr(layer, "_moments", None)
        if moments is not None:

            def recorded_moments(*args, **kwargs):
                m = moments(*args, **kwargs)
                self.moments.append(m)
                return m

            self._patch("_moments", recorded_moments)
        return self

    def _patch(self, name, fn):
        self._saved[name] = name in vars(self.layer)
        object.__setattr__(self.layer, name, fn)

    def __exit__(self, *exc):
        for name, had_own in self._saved.items():
            if not had_own:
                object.__delattr__(self.layer, name)
        return False


def _statistics(x, axis, recorded):
    """Batch mean and (biased) variance, float32, shape [C]: the ones the layer used when they
    were recorded, else computed as Keras does."""
    t = tf()
    if recorded is not None:
        mean, var = recorded
        return t.reshape(mean, [-1]), t.reshape(var, [-1])
    xf = t.cast(x, t.float32)
    axes = [i for i in range(len(x.shape)) if i != axis % len(x.shape)]
    mean, var = t.nn.moments(xf, axes=axes)
    return mean, var


def run(model, layers, x, y, loss_fn, loss_name):
    """One record per (layer, call): x, dy, gamma, beta, epsilon, axis, mean, variance, and the
    reference gradients dx, dgamma, dbeta (absent where the layer has no gamma or beta)."""
    t = tf()
    tape = t.GradientTape(persistent=True)
    recorders = [_Recorder(l, tape) for l in layers]
    try:
        for r in recorders:
            r.__enter__()
        with tape:
            pred = forward(model, t.convert_to_tensor(x))
            loss = loss_value(loss_fn, loss_name, t.convert_to_tensor(y), pred)
    finally:
        for r in recorders:
            r.__exit__(None, None, None)

    records, skipped = [], []
    for r in recorders:
        layer = r.layer
        if not r.calls:
            skipped.append({"name": layer.name, "reason": "not called in the training step"})
            continue
        for k, (inp, out) in enumerate(r.calls):
            name = layer.name if len(r.calls) == 1 else f"{layer.name}#{k}"
            try:
                rec = _one_call(tape, loss, layer, inp, out,
                                r.moments[k] if k < len(r.moments) else None)
            except CaptureError as e:
                skipped.append({"name": name, "reason": str(e)})
                continue
            rec["layer"] = name
            records.append(rec)
    return records, skipped


def _one_call(tape, loss, layer, inp, out, moments):
    t = tf()
    axis = layer_axis(layer)
    if axis is None:
        raise CaptureError("normalizes over several axes; bnscope's ops take one channel axis")
    dy = tape.gradient(loss, out)
    if dy is None:
        raise CaptureError("its output does not reach the loss")
    gamma = getattr(layer, "gamma", None)
    beta = getattr(layer, "beta", None)
    sources = [inp] + [v for v in (gamma, beta) if v is not None]
    try:
        grads = tape.gradient(out, sources, output_gradients=dy)
    except Exception as e:
        raise CaptureError("TensorFlow's gradient through the layer failed: " +
                           short_message(e)) from None
    dx = grads[0]
    dgamma = grads[1] if gamma is not None else None
    dbeta = grads[-1] if beta is not None else None
    mean, var = _statistics(inp, axis, moments)
    channels = int(inp.shape[axis])
    scale = t.convert_to_tensor(gamma) if gamma is not None else t.ones([channels], t.float32)
    return {
        "x": to_numpy(inp),
        "dy": to_numpy(dy),
        "gamma": to_numpy(t.cast(scale, t.float32)),
        "beta": to_numpy(beta) if beta is not None else None,
        "epsilon": float(layer.epsilon),
        "axis": axis % len(inp.shape),
        "mean": to_numpy(t.cast(mean, t.float32)),
        "variance": to_numpy(t.cast(var, t.float32)),
        "dx": to_numpy(dx),
        "dgamma": to_numpy(dgamma) if dgamma is not None else None,
        "dbeta": to_numpy(dbeta) if dbeta is not None else None,
    }
