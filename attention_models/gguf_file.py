"""A GGUF file read with the ``gguf`` package: its metadata as Python values and its tensors
dequantized to float32.

GGUF lists a tensor's shape fastest axis first: a projection from 576 inputs to 1536
outputs is listed [576, 1536] and its rows, as numpy reads them, are the outputs: (1536, 576),
torch's (out, in). ``projection`` turns such a matrix into the engine's (in, out), so that
``X @ W`` applies it to rows of tokens.
"""

from __future__ import annotations

from pathlib import Path

import gguf
import numpy as np

from .base import ModelUnavailable


class GGUFFile:
    """One GGUF file: ``metadata`` (key → int, float, bool, str or list) and its tensors by
    name, dequantized when asked for."""

    def __init__(self, path: str | Path):
        path = Path(path)
        if not path.is_file():
            raise ModelUnavailable(f"no GGUF file at {path}")
        reader = FastReader(path)
        self.path = path
        self.metadata = {key: field_value(field) for key, field in reader.fields.items()}
        self._tensors = {t.name: t for t in reader.tensors}

    def names(self) -> list[str]:
        """The tensors' names, in the file's order."""
        return list(self._tensors)

    def array(self, name: str) -> np.ndarray:
        """Tensor ``name`` as float32 in numpy's reading of the file: GGUF's shape reversed,
        so a matrix is (out, in) and the token embedding (vocabulary, d_model)."""
        tensor = self._tensors[name]
        values = gguf.quants.dequantize(tensor.data, tensor.tensor_type)
        shape = tuple(int(s) for s in reversed(tensor.shape))
        return np.asarray(values, dtype=np.float32).reshape(shape)

    def projection(self, name: str) -> np.ndarray:
        """Matrix ``name`` in the engine's orientation, (in, out), float32, C-contiguous."""
        return np.ascontiguousarray(self.array(name).T)

    def type_name(self, name: str) -> str:
        """How tensor ``name`` is stored: "F32", "Q4_1", "Q8_0", …"""
        return self._tensors[name].tensor_type.name


class FastReader(gguf.GGUFReader):
    """gguf's reader, parsing the same bytes faster.

    The reader slices its np.memmap once per part of every field, and SmolLM2's vocabulary
    and merges are ~100 000 strings of two parts each: a memmap slice costs several
    microseconds of Python (memmap's __array_finalize__), ~3 s in all. A plain ndarray view
    of the same mapping slices in a fraction of that: the reader takes ~0.8 s instead of ~3 s.
    Overrides the private ``_get`` (gguf 0.19: offset, dtype, count, override_order);
    tests/models/test_llama.py checks the parts equal gguf.GGUFReader's."""

    def _get(self, offset, dtype, count=1, override_order=None):
        plain = self.__dict__.get("_plain")
        if plain is None:  # the first call, from __init__ once self.data is mapped
            plain = self._plain = self.data.view(np.ndarray)
        dtype, count = np.dtype(dtype), int(count)
        arr = plain[offset:offset + dtype.itemsize * count].view(dtype)[:count]
        order = self.byte_order if override_order is None else override_order
        return arr.view(arr.dtype.newbyteorder(order))


def field_value(field):
    """A metadata field's value: a string, a number, a bool, or a list of them.

    The reader keeps a field as raw parts; ``field.data`` indexes the parts that hold its
    value (one for a scalar, one per element for an array)."""
    types = field.types
    if not types:
        return None
    element = types[-1]  # an array's types are [ARRAY, element type]
    values = [decode(field.parts[i], element) for i in field.data]
    return values if types[0] == gguf.GGUFValueType.ARRAY else values[0]


def decode(part: np.ndarray, value_type):
    """One part as Python: UTF-8 text for a string, else the number (or bool) it holds."""
    if value_type == gguf.GGUFValueType.STRING:
        return bytes(part).decode("utf-8")
    if value_type == gguf.GGUFValueType.BOOL:
        return bool(part[0])
    return part[0].item()
