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
