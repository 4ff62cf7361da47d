# Sourced by scripts/run and scripts/test: make .venv and install into it.
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
  if [ ! -x .venv/bin/python ]; then
    if ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
      apt_install python3-venv
    fi
    python3 -m venv .venv
  fi
}

ensure_nginx() {
  # The production server's front (attention_server/serve.py): Debian's nginx, as the
  # image installs it. Only the binary is used; its own service is never started.
  if [ ! -x /usr/sbin/nginx ] && ! command -v nginx >/dev/null; then
    apt_install nginx
  fi
}

install_app() {
  # The app's requirements and the real models, as the image installs them; pip skips
  # what is already installed at these versions.
  sh scripts/install.sh .venv/bin/python --quiet
}
