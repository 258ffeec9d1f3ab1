#!/usr/bin/env bash
# Builds the base image both images start from, out of Debian's own packages: no image registry is
# needed (debootstrap fetches from the Debian mirror apt uses). Run as root on a Debian machine.
#   deploy/build-base.sh            -> image openkyc-base:bookworm
set -euo pipefail
rootfs="$(mktemp -d)"
trap 'rm -rf "$rootfs"' EXIT
debootstrap --variant=minbase --include=ca-certificates bookworm "$rootfs" "${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
# Leave apt's lists out of the image; `apt-get update` in a Dockerfile fetches fresh ones.
rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/archives/*.deb
tar -C "$rootfs" -c . | docker import - openkyc-base:bookworm
echo "openkyc-base:bookworm imported"
