"""Tiny models for the tests and the committed sample capture: batch 4, 8x8 images, so a CPU step
takes milliseconds."""

import numpy as np

BATCH, SIZE, CHANNELS, CLASSES = 4, 8, 3, 2


def batch(seed=0):
    rng = np.random.RandomState(seed)
    x = rng.randn(BATCH, SIZE, SIZE, CHANNELS).astype("float32")
    y = (np.arange(BATCH) % CLASSES).astype("int64")
    return x, y


def keras3_cnn(name="k3_cnn"):
    """Keras 3 (unfused BatchNormalization): a channels-last BN, a channels-first BN, and a
    channels-last BN under mixed_float16."""
    import keras

    keras.utils.set_random_seed(1)
    L = keras.layers
    inp = keras.Input((SIZE, SIZE, CHANNELS))
    h = L.Conv2D(4, 3, padding="same", name="conv_a")(inp)
    h = L.BatchNormalization(name="bn_nhwc")(h)
    h = L.ReLU()(h)
    h = L.Permute((3, 1, 2), name="to_nchw")(h)
    h = L.BatchNormalization(axis=1, name="bn_nchw")(h)
    h = L.Permute((2, 3, 1), name="to_nhwc")(h)
    h = L.Conv2D(4, 3, padding="same", name="conv_b", dtype="mixed_float16")(h)
    h = L.BatchNormalization(name="bn_nhwc_f16", dtype="mixed_float16")(h)
    h = L.ReLU(dtype="mixed_float16")(h)
    h = L.GlobalAveragePooling2D()(h)
    out = L.Dense(CLASSES, activation="softmax", name="probs", dtype="float32")(h)
    model = keras.Model(inp, out, name=name)
    model.compile(loss="sparse_categorical_crossentropy")
    return model


def tf_keras_cnn(policy="float32", name=None):
    """tf_keras (Keras 2): BatchNormalization runs TensorFlow's fused ops, channels-last and
    (after a Permute) channels-first."""
    import tf_keras

    tf_keras.utils.set_random_seed(2)
    L = tf_keras.layers
    previous = tf_keras.mixed_precision.global_policy()
    tf_keras.mixed_precision.set_global_policy(policy)
    try:
        inp = L.Input((SIZE, SIZE, CHANNELS))
        h = L.Conv2D(4, 3, padding="same", name="conv_a")(inp)
        h = L.BatchNormalization(name="bn_nhwc")(h)
        h = L.ReLU()(h)
        h = L.Permute((3, 1, 2), name="to_nchw")(h)
        h = L.BatchNormalization(axis=1, name="bn_nchw")(h)
        h = L.GlobalAveragePooling2D(data_format="channels_first")(h)
        out = L.Dense(CLASSES, activation="softmax", name="probs", dtype="float32")(h)
        model = tf_keras.Model(inp, out, name=name or f"tk_cnn_{policy}")
        model.compile(loss="sparse_categorical_crossentropy")
    finally:
        tf_keras.mixed_precision.set_global_policy(previous)
    return model


def keras3_without_bn():
    import keras

    inp = keras.Input((SIZE, SIZE, CHANNELS))
    out = keras.layers.Dense(CLASSES)(keras.layers.Flatten()(inp))
    model = keras.Model(inp, out, name="no_bn")
    model.compile(loss="sparse_categorical_crossentropy")
    return model


def keras3_shared(name="k3_shared"):
    """Keras 3: one BatchNormalization called twice, the second call on the first one's output
    (gamma and beta reach the loss through both calls), and a nested model called twice."""
    import keras

    keras.utils.set_random_seed(3)
    L = keras.layers
    inner_in = keras.Input((SIZE, SIZE, 4))
    block = keras.Model(inner_in, L.BatchNormalization(name="bn_inner")(
        L.Conv2D(4, 1, name="conv_inner")(inner_in)), name="block")
    bn = L.BatchNormalization(name="bn_shared")
    inp = keras.Input((SIZE, SIZE, CHANNELS))
    a = bn(L.Conv2D(4, 3, padding="same", name="conv_a")(inp))
    h = bn(L.Conv2D(4, 1, name="conv_b")(a) * 2.0 + 1.0)
    h = block(block(h))
    h = L.GlobalAveragePooling2D()(h)
    out = L.Dense(CLASSES, activation="softmax", name="probs")(h)
    model = keras.Model(inp, out, name=name)
    model.compile(loss="sparse_categorical_crossentropy")
    return model


def local_gradients(meta, inputs):
    """FusedBatchNormGradV3's outputs in float64 from a problem file's own inputs (variance
    convention): training with the batch statistics, frozen with the given ones."""
    attrs = meta["attrs"]
    axis = attrs["data_format"].index("C")
    x = inputs["x"].astype(np.float64)
    dy = inputs["y_backprop"].astype(np.float64)
    reduce = tuple(i for i in range(x.ndim) if i != axis)
    shape = [1] * x.ndim
    shape[axis] = -1
    mean = inputs["reserve_space_1"].astype(np.float64).reshape(shape)
    var = inputs["reserve_space_2"].astype(np.float64).reshape(shape)
    gamma = inputs["scale"].astype(np.float64).reshape(shape)
    inv = 1 / np.sqrt(var + attrs["epsilon"])
    xhat = (x - mean) * inv
    dbeta, dgamma = dy.sum(axis=reduce), (dy * xhat).sum(axis=reduce)
    if attrs["is_training"]:
        n = x.size / x.shape[axis]
        dx = gamma * inv * (dy - dbeta.reshape(shape) / n - xhat * dgamma.reshape(shape) / n)
    else:
        dx = dy * gamma * inv
    return {"x_backprop": dx, "scale_backprop": dgamma, "offset_backprop": dbeta}


def keras3_frozen(name="k3_frozen"):
    """Keras 3: a frozen BatchNormalization (trainable=False) and a subclassed model calling one
    with training=False; both run in inference mode with moving statistics unlike the batch's."""
    import keras

    keras.utils.set_random_seed(4)
    L = keras.layers

    class Net(keras.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.conv_a = L.Conv2D(4, 3, padding="same", name="conv_a")
            self.bn_frozen = L.BatchNormalization(name="bn_frozen", trainable=False)
            self.conv_b = L.Conv2D(4, 3, padding="same", name="conv_b")
            self.bn_inference = L.BatchNormalization(name="bn_inference")
            self.bn_live = L.BatchNormalization(name="bn_live")
            self.pool = L.GlobalAveragePooling2D()
            self.probs = L.Dense(CLASSES, activation="softmax", name="probs")

        def call(self, x, training=None):
            h = self.bn_frozen(self.conv_a(x), training=training)
            h = self.bn_inference(self.conv_b(h), training=False)
            return self.probs(self.pool(self.bn_live(h, training=training)))

    model = Net(name=name)
    model(np.zeros((1, SIZE, SIZE, CHANNELS), np.float32))
    for bn in (model.bn_frozen, model.bn_inference):
        bn.moving_mean.assign(np.full(4, 0.5, np.float32))
        bn.moving_variance.assign(np.full(4, 3.0, np.float32))
    model.compile(loss="sparse_categorical_crossentropy")
    return model


def keras3_masked(name="k3_masked"):
    """Keras 3: a BatchNormalization on masked input (its statistics skip the masked steps), one
    without a mask after the pooling."""
    import keras

    keras.utils.set_random_seed(5)
    L = keras.layers
    inp = keras.Input((6, CHANNELS))
    h = L.Dense(4, name="dense_a")(L.Masking(0.0)(inp))
    h = L.GlobalAveragePooling1D()(L.BatchNormalization(name="bn_masked")(h))
    h = L.BatchNormalization(name="bn_plain")(L.Dense(4, name="dense_b")(h))
    model = keras.Model(inp, L.Dense(CLASSES, activation="softmax", name="probs")(h), name=name)
    model.compile(loss="sparse_categorical_crossentropy")
    x = np.random.RandomState(5).randn(BATCH, 6, CHANNELS).astype("float32")
    x[:, 4:] = 0.0
    return model, x


def with_special_bn(framework, make_bn, name="special"):
    """A CNN with one special batch norm, make_bn(layers) (renorm, virtual batches, ...), and a
    plain one after it, in Keras 3 or tf_keras."""
    if framework == "tf_keras":
        import tf_keras as keras
    else:
        import keras

    keras.utils.set_random_seed(6)
    L = keras.layers
    inp = keras.Input((SIZE, SIZE, CHANNELS))
    h = make_bn(L)(L.Conv2D(4, 3, padding="same", name="conv_a")(inp))
    h = L.BatchNormalization(name="bn_plain")(L.Conv2D(4, 3, padding="same", name="conv_b")(h))
    out = L.Dense(CLASSES, activation="softmax", name="probs")(L.GlobalAveragePooling2D()(h))
    model = keras.Model(inp, out, name=name)
    model.compile(loss="sparse_categorical_crossentropy")
    return model


def tf_keras_shared(name="tk_shared"):
    """tf_keras: one (fused) BatchNormalization called twice."""
    import tf_keras

    tf_keras.utils.set_random_seed(7)
    L = tf_keras.layers
    bn = L.BatchNormalization(name="bn_shared")
    inp = L.Input((SIZE, SIZE, CHANNELS))
    a = bn(L.Conv2D(4, 3, padding="same", name="conv_a")(inp))
    h = bn(L.Conv2D(4, 1, name="conv_b")(a))
    model = tf_keras.Model(inp, L.Dense(CLASSES, activation="softmax", name="probs")(
        L.GlobalAveragePooling2D()(h)), name=name)
    model.compile(loss="sparse_categorical_crossentropy")
    return model
