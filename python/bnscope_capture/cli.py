"""bnscope-capture --model MODEL --batch BATCH.npz --out DIR [--loss NAME] [--device cpu|gpu]
[--layers REGEX]"""

import argparse
import os
import sys
import zipfile

import numpy as np

from .errors import CaptureError

EXIT_OK, EXIT_BAD_INPUT, EXIT_INTERNAL = 0, 2, 4


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise CaptureError(message)


def _parser():
    p = _Parser(
        prog="bnscope-capture",
        description="Runs one training step of a TensorFlow/Keras model and writes every batch "
        "normalization in it as a bnscope problem file carrying TensorFlow's outputs, plus "
        "manifest.json. Open the folder with `bnscope-cli sweep DIR` or one file with "
        "`bnscope-cli run --problem FILE`.")
    p.add_argument("--model", help="a .keras (or .h5) file or a SavedModel folder")
    p.add_argument("--torch-model", help="a PyTorch model: FILE.py:FUNCTION, FUNCTION() returning "
                   "the torch.nn.Module (loss: cross-entropy for integer y, else MSE)")
    p.add_argument("--batch", required=True, help="an .npz holding x and y")
    p.add_argument("--out", required=True, help="a new (or empty) folder for the capture")
    p.add_argument("--loss", help="a Keras loss name (default: the model's compiled loss)")
    p.add_argument("--device", choices=("cpu", "gpu"), help="default: TensorFlow's choice")
    p.add_argument("--layers", help="capture only layers whose name matches this expression")
    return p


def _keras_version_of(path):
    """The Keras version a .keras archive or an .h5 file was saved with, or None."""
    import json

    if zipfile.is_zipfile(path):
        try:
            with zipfile.ZipFile(path) as z:
                return json.loads(z.read("metadata.json")).get("keras_version")
        except (KeyError, ValueError, zipfile.BadZipFile, OSError):
            return None
    try:
        import h5py  # comes with Keras

        with h5py.File(path, "r") as f:
            version = f.attrs.get("keras_version")
    except Exception:  # not an HDF5 file: the loader says what it is
        return None
    return version.decode() if isinstance(version, bytes) else version


def load_model(path):
    from .frameworks import short_message, tf_keras_or_none

    if not os.path.exists(path):
        raise CaptureError(f"--model {path}: no such file or folder")
    is_saved_model = os.path.isdir(path)
    if is_saved_model and not os.path.exists(os.path.join(path, "saved_model.pb")):
        raise CaptureError(f"--model {path}: folder without saved_model.pb; expected a .keras "
                           "file or a SavedModel folder")
    if is_saved_model and not os.path.exists(os.path.join(path, "keras_metadata.pb")):
        # Keras 3's model.export() and tf.saved_model.save() keep the inference function only.
        raise CaptureError(f"--model {path}: a SavedModel without Keras metadata (such as Keras "
                           "3's model.export() writes) holds an inference function only, no "
                           "training step; save the model as a .keras file (model.save)")
    tk = tf_keras_or_none()
    if is_saved_model:
        legacy = True
    else:
        # .h5 files are Keras 2's unless Keras 3 wrote them; .keras archives Keras 3's unless
        # Keras 2 did.
        version = _keras_version_of(path) or ("2" if path.endswith(".h5") else "3")
        legacy = not version.startswith("3")
    try:
        if legacy:
            if tk is None:
                raise CaptureError(f"--model {path}: a Keras 2 model needs tf_keras "
                                   "(pip install tf-keras)")
            return tk.models.load_model(path)
        import keras

        return keras.saving.load_model(path)
    except CaptureError:
        raise
    except Exception as e:
        raise CaptureError(f"--model {path}: cannot load: {short_message(e)}") from None


def load_batch(path):
    if not os.path.isfile(path):
        raise CaptureError(f"--batch {path}: no such file")
    try:
        z = np.load(path, allow_pickle=False)
        if not isinstance(z, np.lib.npyio.NpzFile):
            raise CaptureError(f"--batch {path}: a single array (.npy); expected an .npz holding "
                               "x and y (np.savez(path, x=x, y=y))")
        with z:
            names = set(z.files)
            missing = {"x", "y"} - names
            if missing:
                raise CaptureError(f"--batch {path}: no member {' or '.join(sorted(missing))}; "
                                   "expected an .npz holding x and y")
            extra = names - {"x", "y"}
            if extra:
                raise CaptureError(f"--batch {path}: unexpected member(s) "
                                   f"{', '.join(sorted(extra))}; expected only x and y")
            return z["x"], z["y"]
    except CaptureError:
        raise
    except Exception as e:
        raise CaptureError(f"--batch {path}: not a readable .npz ({e})") from None


def load_torch_model(spec):
    path, _, func = spec.rpartition(":")
    if not path or not func:
        raise CaptureError(f"--torch-model {spec}: expected FILE.py:FUNCTION")
    if not os.path.isfile(path):
        raise CaptureError(f"--torch-model {spec}: no such file {path}")
    import importlib.util
    module_spec = importlib.util.spec_from_file_location("bnscope_user_model", path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    make = getattr(module, func, None)
    if not callable(make):
        raise CaptureError(f"--torch-model {spec}: {path} has no function {func}")
    return make()


def _capture_torch(args, x, y):
    from .torch_capture import capture_torch

    manifest = capture_torch(load_torch_model(args.torch_model), x, y, args.out)
    for layer in manifest["layers"]:
        print(f"{layer['index']:3d}  {layer['name']:<24} {layer['captured']:<15} "
              f"{layer['op']} {layer['data_format']} x{tuple(layer['shapes']['x'])}")
    for s in manifest["skipped"]:
        print(f"skipped {s['name']}: {s['reason']}")
    print(f"wrote {len(manifest['layers'])} layer(s) to {os.path.abspath(args.out)}")
    return EXIT_OK


def main(argv=None):
    try:
        args = _parser().parse_args(argv)
        from .capture import capture, check_tensorflow
        from .output_folder import check_target

        # Everything that needs no TensorFlow is checked before importing it (seconds).
        check_target(args.out)
        if (args.model is None) == (args.torch_model is None):
            raise CaptureError("give one of --model (Keras) or --torch-model FILE.py:FUNCTION")
        x, y = load_batch(args.batch)
        if args.torch_model is not None:
            return _capture_torch(args, x, y)
        if not os.path.exists(args.model):
            raise CaptureError(f"--model {args.model}: no such file or folder")
        check_tensorflow()
        model = load_model(args.model)
        result = capture(model, x, y, args.out, loss=args.loss, device=args.device,
                         layers=args.layers)
    except CaptureError as e:
        print(f"bnscope-capture: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return 130
    except Exception as e:  # a TensorFlow failure no check above foresaw: still one line
        from .frameworks import short_message

        print(f"bnscope-capture: internal error: {short_message(e)}", file=sys.stderr)
        return EXIT_INTERNAL
    for layer in result.manifest["layers"]:
        print(f"{layer['index']:3d}  {layer['name']:<24} {layer['captured']:<15} "
              f"{layer['op']} {layer['data_format']} x{tuple(layer['shapes']['x'])} "
              f"{layer['dtypes']['x']}")
    for s in result.manifest["skipped"]:
        print(f"skipped {s['name']}: {s['reason']}")
    for w in result.manifest.get("warnings", []):
        print(f"bnscope-capture: warning: {w}", file=sys.stderr)
    print(f"wrote {len(result.manifest['layers'])} layer(s) to {result.dir}")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
