#!/usr/bin/env bash
# Installs what the console's browser tests drive: Debian's chromium and chromedriver
# (a browser downloaded at run time does not work on the machines this project runs on).
# Prints the two paths. Needs root (or sudo) on a machine that lacks them.
set -euo pipefail
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
  sudo=""
  if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium chromium-driver >/dev/null
fi
command -v chromium
command -v chromedriver
