"""Autodiff path, for BatchNormalization layers TensorFlow does not run as a fused op (Keras 3's,
and tf_keras layers that cannot be fused): one eager training step with each layer's call
recorded. The upstream gradient of every call is the loss's gradient at that call's output, all
of them from one backward pass; the reference outputs are TensorFlow's gradients through that
call alone: the layer's own call run again on the recorded input, on a tape of its own, seeded
with the upstream gradient."""

from .errors import CaptureError
from .frameworks import layer_axis, short_message, tf, to_numpy
from .fused import forward, loss_value, scaled


class _Call:
    """One call of a layer: its arguments, output, and the statistics it used."""

    def __init__(self, inputs, args, kwargs, variables):
        self.inputs, self.args, self.kwargs = inputs, args, kwargs
        self.variables = variables  # the layer's non-trainable variables when it was called
        self.out, self.moments = None, []


class _Recorder:
    """Wraps a layer's call and moments for one step; restores them afterwards."""

    def __init__(self, layer):
        self.layer, self.calls = layer, []
        self.call = layer.call  # the layer's own call, for running one call again
        self._saved = {}
        self._current = None

    def __enter__(self):
        layer = self.layer
        call = self.call

        def recorded_call(inputs, *args, **kwargs):
            rec = _Call(inputs, args, kwargs,
                        [tf().identity(v) for v in layer.non_trainable_variables])
            outer, self._current = self._current, rec
            try:
                rec.out = call(inputs, *args, **kwargs)
            finally:
                self._current = outer
            self.calls.append(rec)
            return rec.out

        self._patch("call", recorded_call)
        moments = getattr(layer, "_moments", None)
        if moments is not None:

            def recorded_moments(*args, **kwargs):
                m = moments(*args, **kwargs)
                if self._current is not None:
                    self._current.moments.append(m)
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


def _argument(rec, name, position):
    if name in rec.kwargs:
        return rec.kwargs[name]
    return rec.args[position] if len(rec.args) > position else None


def _ran_training(layer, rec):
    """Whether the call normalized with the batch's statistics (else the moving ones), as the
    layer decided it: Keras 3 on `training and trainable`, tf_keras through its training value."""
    t = tf()
    training = _argument(rec, "training", 0)
    if hasattr(layer, "_get_training_value"):  # tf_keras: a frozen layer overrides training
        training = layer._get_training_value(training)
    if t.is_tensor(training):
        training = t.get_static_value(training)
    return bool(training) and bool(layer.trainable)


def _unsupported(layer, rec, training):
    """Why this call is none of bnscope's ops, or None."""
    if _argument(rec, "mask", 1) is not None:
        return "masked input: TensorFlow's fused ops have no mask"
    if training and getattr(layer, "renorm", False):
        return "batch renormalization: its r/d correction is not one of these ops"
    if training and getattr(layer, "virtual_batch_size", None) is not None:
        return "virtual batches: statistics per sub-batch"
    if training and getattr(layer, "adjustment", None) is not None:
        return "adjustment: a scale and offset per batch that none of these ops applies"
    return None


def run(model, layers, x, y, loss_fn, loss_name, loss_scale=1.0):
    """One record per (layer, call): x, dy, gamma, beta, epsilon, axis, is_training, mean,
    variance (the batch's in training, the moving ones otherwise), and the reference gradients
    dx, dgamma, dbeta (absent where the layer has no gamma or beta). Returns (records, skipped)."""
    t = tf()
    recorders = [_Recorder(l) for l in layers]
    try:
        for r in recorders:
            r.__enter__()
        with t.GradientTape() as tape:
            pred = forward(model, t.convert_to_tensor(x))
            loss = scaled(loss_value(loss_fn, loss_name, t.convert_to_tensor(y), pred),
                          loss_scale)
    finally:
        for r in recorders:
            r.__exit__(None, None, None)

    # Every call's upstream gradient from one backward pass.
    calls = [(r, k, c) for r in recorders for k, c in enumerate(r.calls)]
    try:
        upstream = tape.gradient(loss, [c.out for _, _, c in calls]) if calls else []
    except Exception as e:
        raise CaptureError("the training step's gradient failed: " + short_message(e)) from None

    records, skipped = [], []
    for r in recorders:
        if not r.calls:
            skipped.append({"name": r.layer.name, "reason": "not called in the training step"})
    for (r, k, rec), dy in zip(calls, upstream):
        layer = r.layer
        name = layer.name if len(r.calls) == 1 else f"{layer.name}#{k}"
        try:
            one = _one_call(r, rec, dy)
        except CaptureError as e:
            skipped.append({"name": name, "reason": str(e)})
            continue
        one["layer"] = name
        records.append(one)
    return records, skipped


def _rerun(recorder, rec, dy, params):
    """TensorFlow's gradients of this one call: the layer's call run again on the recorded input
    with the non-trainable variables it saw, on a tape of its own (so no other call of the layer
    adds to gamma's and beta's), seeded with the call's upstream gradient."""
    t = tf()
    variables = recorder.layer.non_trainable_variables
    final = [t.identity(v) for v in variables]
    x = t.identity(rec.inputs)
    try:
        for v, value in zip(variables, rec.variables):
            v.assign(value)
        with t.GradientTape() as tape:
            tape.watch(x)
            for p in params:
                tape.watch(p)
            out = recorder.call(x, *rec.args, **rec.kwargs)
    finally:
        for v, value in zip(variables, final):  # the step's moving averages, as they were
            v.assign(value)
    return tape.gradient(out, [x] + params, output_gradients=dy)


def _as_called(layer, rec, variable):
    """A non-trainable variable's value when the call began."""
    for v, value in zip(layer.non_trainable_variables, rec.variables):
        if v is variable:
            return value
    return tf().convert_to_tensor(variable)


def _statistics(layer, x, axis, rec, training):
    """Mean and variance as the call used them, shape [C]: the batch's (recorded, else computed as
    Keras does) in training, the moving ones it saw otherwise."""
    t = tf()
    if not training:
        return (_as_called(layer, rec, layer.moving_mean),
                _as_called(layer, rec, layer.moving_variance))
    if len(rec.moments) == 1:
        mean, var = rec.moments[0]
        return t.reshape(mean, [-1]), t.reshape(var, [-1])
    xf = t.cast(x, t.float32 if x.dtype in (t.float16, t.bfloat16) else x.dtype)
    axes = [i for i in range(len(x.shape)) if i != axis % len(x.shape)]
    return t.nn.moments(xf, axes=axes)


def _one_call(recorder, rec, dy):
    t = tf()
    layer = recorder.layer
    training = _ran_training(layer, rec)
    reason = _unsupported(layer, rec, training)
    if reason:
        raise CaptureError(reason)
    axis = layer_axis(layer)
    if axis is None:
        raise CaptureError("normalizes over several axes; bnscope's ops take one channel axis")
    if dy is None:
        raise CaptureError("its output does not reach the loss")
    inp = rec.inputs
    gamma = getattr(layer, "gamma", None)
    beta = getattr(layer, "beta", None)
    # Keras 3 wraps a tf.Variable: the tape watches the wrapped one.
    params = [getattr(v, "value", v) if not isinstance(v, t.Variable) else v
              for v in (gamma, beta) if v is not None]
    try:
        grads = _rerun(recorder, rec, dy, params)
    except Exception as e:
        raise CaptureError("TensorFlow's gradient through the layer failed: " +
                           short_message(e)) from None
    dx = grads[0]
    dgamma = grads[1] if gamma is not None else None
    dbeta = grads[-1] if beta is not None else None
    mean, var = _statistics(layer, inp, axis, rec, training)
    channels = int(inp.shape[axis])
    scale = t.convert_to_tensor(gamma) if gamma is not None else t.ones([channels], mean.dtype)
    return {
        "x": to_numpy(inp),
        "dy": to_numpy(dy),
        "gamma": to_numpy(scale),
        "beta": to_numpy(beta) if beta is not None else None,
        "epsilon": float(layer.epsilon),
        "axis": axis % len(inp.shape),
        "is_training": training,
        "mean": to_numpy(mean),
        "variance": to_numpy(var),
        "dx": to_numpy(dx),
        "dgamma": to_numpy(dgamma) if dgamma is not None else None,
        "dbeta": to_numpy(dbeta) if dbeta is not None else None,
    }
