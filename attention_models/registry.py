"""The models this app serves, each loaded once per process, and what to run when one cannot be.

Loading reads a whole weights file (SmolLM2: 1.2 s to dequantize 135 M weights into
0.54 GB of float32). The production server loads both in its master before forking
(gunicorn.conf.py), so its workers share those pages; anything else loads a model the
first time it is asked for.
"""

from __future__ import annotations

import importlib
import shlex
import sys
import threading
import time
from pathlib import Path

from .base import Model, ModelUnavailable

# id → the module whose load() reads it. The order is the one GET /api/models lists.
MODULES = {"smollm2-135m": "attention_models.smollm2", "minilm-l6": "attention_models.minilm"}
MODEL_IDS = tuple(MODULES)
# Each model's kind, layers and query heads, as its weights file says them (each model's
# tests check they agree): the API document gives each model's range of layer and head, and
# offers the key/value cache the decoders only, without reading a weight.
SHAPES = {"smollm2-135m": ("decoder", 30, 9), "minilm-l6": ("encoder", 6, 12)}

# The models' packages and readers, pinned by hash. A checkout and the image have the file
# beside the packages; `pip install .` puts a copy in <prefix>/share (pyproject.toml).
REQUIREMENTS = "requirements-models.txt"

_loaded: dict[str, Model] = {}
_lock = threading.Lock()


def get(model_id: str) -> Model:
    """The loaded model ``model_id`` (one of MODEL_IDS), loading it on first use."""
    model = _loaded.get(model_id)
    if model is None:
        with _lock:  # two threads asking at once load it once
            model = _loaded.get(model_id)
            if model is None:
                model = _loaded[model_id] = _module(model_id).load()
    return model


def _module(model_id: str):
    """The module that reads ``model_id``; its readers (gguf, safetensors, tokenizers, yaml)
    come from requirements-models.txt, which a plain ``pip install .`` does not install."""
    try:
        return importlib.import_module(MODULES[model_id])
    except ImportError as exc:
        raise ModelUnavailable(f"the module {exc.name} is not installed") from exc


def load_all() -> list[Model]:
    """Every model, loaded now; ModelUnavailable names the first that cannot be, and why."""
    return [get(model_id) for model_id in MODEL_IDS]


def load_available() -> tuple[list[Model], dict[str, ModelUnavailable]]:
    """The models that can be loaded, loaded now, and why each of the others cannot be."""
    loaded, missing = [], {}
    for model_id in MODEL_IDS:
        try:
            loaded.append(get(model_id))
        except ModelUnavailable as exc:
            missing[model_id] = exc
    return loaded, missing


def requirements_file() -> Path:
    """requirements-models.txt as this installation has it."""
    beside = Path(__file__).resolve().parents[1] / REQUIREMENTS
    shared = Path(sys.prefix, "share/attention-explorer", REQUIREMENTS)
    return beside if beside.is_file() else shared


def install_command() -> str:
    """The one command that installs the models into the Python running this code: without
    the dependencies the packages declare (torch and more, which reading them does not
    need), each wheel checked against its pinned hash."""
    return shlex.join([sys.executable, "-m", "pip", "install", "--no-deps", "--require-hashes",
                       "-r", str(requirements_file())])


def remedy() -> str:
    """What to do about a model that cannot be loaded: the sentence ending every such message."""
    return f"To install the real models, run: {install_command()}; then restart the server."


def log_loading(log) -> list[Model]:
    """Load every model that can be and log it: which are loaded, in how long, and else one
    error line naming each missing model, why, and the command that installs them.
    ``log`` is a logger (gunicorn's or the standard library's). The loaded models."""
    start = time.perf_counter()
    loaded, missing = load_available()
    if loaded:
        log.info("Real models loaded: %s, in %.1f s", ", ".join(m.info.name for m in loaded),
                 time.perf_counter() - start)
    if missing:
        why = "; ".join(f"{model_id} ({exc})" for model_id, exc in missing.items())
        log.error("Real models not loaded: %s. %s", why, remedy())
    return loaded
